"""Bundled news-site profiles (one TOML file a site) and the loader for user profiles."""

from newsextract.sites.patterns import PatternError, UrlPattern, compile_pattern
from newsextract.sites.profile import SiteExamples, SiteProfile, parse_profile
from newsextract.sites.registry import get_profile, load_profile, load_profiles

__all__ = [
    "PatternError",
    "SiteExamples",
    "SiteProfile",
    "UrlPattern",
    "compile_pattern",
    "get_profile",
    "load_profile",
    "load_profiles",
    "parse_profile",
]
