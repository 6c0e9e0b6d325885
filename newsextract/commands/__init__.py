"""Scrapy commands of the project (``COMMANDS_MODULE``): ``crawl``, with its spider arguments
checked before it starts and an exit status a scheduled job can trust."""
