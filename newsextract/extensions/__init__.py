"""Crawl-wide records: the failure log and the listing log (one JSON line a fetched URL)."""
