"""A user's own project: its spider, newsextract's item stage through the add-on."""

BOT_NAME = "userproject"
SPIDER_MODULES = ["userproject.spiders"]
ROBOTSTXT_OBEY = True
ADDONS = {"newsextract.NewsExtract": 300}
