"""Record: the article of a page (body, headline, metadata), from the decision."""
