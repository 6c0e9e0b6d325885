"""Site profiles: the loader's checks, user overrides, and every bundled profile against
its own example URLs (one test case a site and URL, as Fundus does for its publishers)."""

from __future__ import annotations

import time
from importlib import resources
from pathlib import Path

import pytest

from newsextract.exceptions import SiteProfileError
from newsextract.sites import (
    SiteProfile,
    get_profile,
    load_profile,
    load_profiles,
    parse_profile,
)

BUNDLED = load_profiles()
REQUIRED_SITES = {"asahi", "mainichi", "yomiuri", "cnn"}
MIN_ARTICLE_EXAMPLES = 4
MIN_NON_ARTICLE_EXAMPLES = 3

EXAMPLE_TOML = r"""
name = "example"
site = "example.org"
language = "en"
allowed_domains = ["www.example.org"]
start_urls = ["https://www.example.org/", "https://www.example.org/world/"]
feeds = ["https://feeds.example.net/rss.xml"]

[patterns]
article = ['^https://www\.example\.org/(?:[a-z]+/)?\d{4}/[a-z-]+\.html$']
listing = ['^https://www\.example\.org/(?:[a-z]+/)*$']
deny = ['/video/']

[examples]
articles = ["https://www.example.org/world/2024/some-story.html"]
non_articles = ["https://www.example.org/world/", "https://www.example.org/video/2024/clip.html"]
"""

ARTICLE_CASES = [(n, u) for n, p in BUNDLED.items() for u in p.examples.articles]
NON_ARTICLE_CASES = [(n, u) for n, p in BUNDLED.items() for u in p.examples.non_articles]
START_CASES = [(n, u) for n, p in BUNDLED.items() for u in p.start_urls]


def example(text: str = EXAMPLE_TOML) -> SiteProfile:
    return parse_profile(text, "example.toml")


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- every bundled profile -------------------------------------------------------------


def test_the_required_sites_and_several_languages_are_bundled() -> None:
    assert set(BUNDLED) >= REQUIRED_SITES
    assert len(BUNDLED) >= 12
    assert len({p.language.split("-")[0] for p in BUNDLED.values()}) >= 5


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_profile_is_complete(name: str) -> None:
    profile = BUNDLED[name]
    assert profile.name == name
    assert len(profile.examples.articles) >= MIN_ARTICLE_EXAMPLES
    assert len(profile.examples.non_articles) >= MIN_NON_ARTICLE_EXAMPLES
    assert profile.sitemaps or profile.feeds, "a profile names a sitemap or a feed"
    assert any(d == profile.site or d.endswith("." + profile.site) for d in profile.allowed_domains)
    assert profile.misclassified() == ()


@pytest.mark.parametrize(("name", "url"), ARTICLE_CASES)
def test_bundled_article_example_is_an_article(name: str, url: str) -> None:
    profile = BUNDLED[name]
    assert profile.is_article(url)
    assert not profile.is_listing(url)


@pytest.mark.parametrize(("name", "url"), NON_ARTICLE_CASES)
def test_bundled_non_article_example_is_not_an_article(name: str, url: str) -> None:
    profile = BUNDLED[name]
    assert profile.allows(url)
    assert not profile.is_article(url)


@pytest.mark.parametrize(("name", "url"), START_CASES)
def test_bundled_start_url_is_a_listing(name: str, url: str) -> None:
    assert BUNDLED[name].is_listing(url)


def test_get_profile_returns_the_bundled_profile() -> None:
    asahi = get_profile("asahi")
    assert (asahi.site, asahi.language) == ("asahi.com", "ja")
    assert asahi.is_article("https://www.asahi.com/articles/ASL4J669JL4JUEHF016.html")


def test_unknown_profile_names_the_known_ones() -> None:
    with pytest.raises(SiteProfileError, match=r"unknown site profile 'nosuch'.*asahi.*cnn"):
        get_profile("nosuch")


# --- classification --------------------------------------------------------------------


def test_host_must_be_an_allowed_domain_or_a_subdomain() -> None:
    profile = example()
    assert profile.is_article("https://www.example.org/2024/story.html")
    assert profile.allows("https://news.www.example.org/")
    assert not profile.allows("https://www.example.org.evil.net/2024/story.html")
    assert not profile.allows("https://example.org/")


def test_deny_wins_over_article_and_listing() -> None:
    profile = example()
    assert not profile.is_article("https://www.example.org/video/2024/clip.html")
    assert not profile.is_listing("https://www.example.org/video/")
    assert profile.is_listing("https://www.example.org/world/")


def test_an_article_is_never_a_listing() -> None:
    profile = example(EXAMPLE_TOML.replace(r"(?:[a-z]+/)*$", r"(?:[a-z0-9-]+(?:/|\.html))*$"))
    url = "https://www.example.org/2024/story.html"
    assert profile.is_article(url)
    assert not profile.is_listing(url)


def test_crawl_domains_add_the_hosts_of_feeds_and_sitemaps() -> None:
    assert example().crawl_domains() == ("www.example.org", "feeds.example.net")


def test_optional_fields_default_to_empty() -> None:
    profile = example()
    assert (profile.sitemaps, profile.encoding, profile.title) == ((), None, "")
    hinted = example(EXAMPLE_TOML.replace('language = "en"', 'language = "en"\nencoding = "GBK"'))
    assert hinted.encoding == "gbk"


# --- loader errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "deny = ['/video/']",
            "deny = ['/video/(']",
            r"example\.toml: patterns\.deny\[0\]: bad regex",
        ),
        ('site = "example.org"', 'site = "example.org"\ncolour = "red"', r"colour: unknown key"),
        ("deny = ['/video/']", "deny = ['/video/']\nallow = []", r"patterns\.allow: unknown key"),
        ('site = "example.org"\n', "", r"example\.toml: site: missing required field"),
        ('articles = ["', 'articles = []\nx = ["', r"examples\.x: unknown key"),
        ('name = "example"', 'name = "other"', r"name: 'other' must match the file name"),
        ('language = "en"', 'language = "English"', r"language: 'English' is not a BCP 47"),
        ('language = "en"', "language = 7", r"language: must be a string, not int"),
        ('"https://feeds.example.net/rss.xml"', '"feeds/rss.xml"', r"feeds\[0\]: .* not an abs"),
        ('site = "example.org"', 'site = "Example.org"', r"site: 'Example.org' is not a lower"),
        ('language = "en"', 'language = "en"\nencoding = "klingon"', r"encoding: unknown enc"),
        ('allowed_domains = ["www.example.org"]', "allowed_domains = []", r"must not be empty"),
        ("[patterns]", "[[patterns]]", r"patterns: must be a table"),
        ('name = "example"', 'name = "example', r"example\.toml: not valid TOML"),
    ],
)
def test_loader_rejects_a_bad_file(old: str, new: str, message: str) -> None:
    assert old in EXAMPLE_TOML
    with pytest.raises(SiteProfileError, match=message):
        example(EXAMPLE_TOML.replace(old, new, 1))


def test_an_article_example_the_patterns_miss_is_an_error() -> None:
    text = EXAMPLE_TOML.replace("2024/some-story.html", "24/some-story.html")
    with pytest.raises(SiteProfileError, match=r"examples\.articles\[0\]: .*no article pattern"):
        example(text)


def test_an_article_example_that_is_denied_is_an_error() -> None:
    text = EXAMPLE_TOML.replace("world/2024/some-story", "video/2024/some-story")
    with pytest.raises(SiteProfileError, match=r"examples\.articles\[0\]: .*deny pattern"):
        example(text)


def test_a_non_article_example_the_patterns_take_for_an_article_is_an_error() -> None:
    text = EXAMPLE_TOML.replace(
        '"https://www.example.org/world/", "', '"https://www.example.org/2023/a.html", "'
    )
    with pytest.raises(
        SiteProfileError, match=r"examples\.non_articles\[0\]: .* classified as an art"
    ):
        example(text)


def test_an_example_off_the_site_is_an_error() -> None:
    text = EXAMPLE_TOML.replace(
        '"https://www.example.org/world/", "', '"https://elsewhere.org/", "'
    )
    with pytest.raises(SiteProfileError, match=r"examples\.non_articles\[0\]: .* not on the site"):
        example(text)


def test_a_start_url_must_be_on_the_site_and_not_an_article() -> None:
    off_site = EXAMPLE_TOML.replace('"https://www.example.org/world/"]', '"https://other.org/"]', 1)
    with pytest.raises(SiteProfileError, match=r"start_urls\[1\]: .* not in allowed_domains"):
        example(off_site)
    article = EXAMPLE_TOML.replace(
        '"https://www.example.org/world/"]', '"https://www.example.org/2024/a.html"]', 1
    )
    with pytest.raises(SiteProfileError, match=r"start_urls\[1\]: .* is an article"):
        example(article)


# --- user profiles ---------------------------------------------------------------------


def bundled_text(name: str) -> str:
    return (resources.files("newsextract.sites") / "profiles" / f"{name}.toml").read_text("utf-8")


def test_a_user_file_overrides_the_bundled_profile_of_the_same_name(tmp_path: Path) -> None:
    text = bundled_text("asahi").replace(
        'title = "The Asahi Shimbun (朝日新聞)"', 'title = "Asahi, my way"'
    )
    write(tmp_path, "asahi", text)
    write(tmp_path, "example", EXAMPLE_TOML)
    profiles = load_profiles(tmp_path)
    assert profiles["asahi"].title == "Asahi, my way"
    assert profiles["example"].site == "example.org"
    assert profiles["cnn"] == BUNDLED["cnn"]
    assert set(profiles) == set(BUNDLED) | {"example"}
    assert get_profile("example", extra_dir=str(tmp_path)).language == "en"
    assert load_profiles()["asahi"].title != "Asahi, my way"  # the bundled one is untouched


def test_a_broken_user_file_is_reported_by_name(tmp_path: Path) -> None:
    write(tmp_path, "example", EXAMPLE_TOML.replace("deny = ['/video/']", "deny = ['(']"))
    with pytest.raises(SiteProfileError, match=r"^example\.toml: patterns\.deny\[0\]"):
        load_profiles(tmp_path)


def test_a_missing_user_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SiteProfileError, match="does not exist"):
        load_profiles(tmp_path / "nowhere")


def test_no_user_directory_means_the_bundled_profiles() -> None:
    assert load_profiles(None) == BUNDLED
    assert load_profiles("") == BUNDLED


def test_load_profile_reads_one_file(tmp_path: Path) -> None:
    path = write(tmp_path, "example", EXAMPLE_TOML)
    assert load_profile(path) == example()
    with pytest.raises(SiteProfileError, match=r"missing\.toml: cannot read"):
        load_profile(tmp_path / "missing.toml")


def test_a_broken_user_file_can_be_skipped_with_a_report(tmp_path: Path) -> None:
    broken = write(tmp_path, "broken", EXAMPLE_TOML.replace('name = "example"', 'name = "broken"'))
    broken.write_text(broken.read_text("utf-8").replace("deny = ['/video/']", "deny = ['(']"))
    write(tmp_path, "example", EXAMPLE_TOML)
    write(tmp_path, "asahi", "name = 'asahi'\n")  # meant to replace the bundled asahi
    reported: list[tuple[Path, SiteProfileError]] = []
    profiles = load_profiles(tmp_path, on_error=lambda path, error: reported.append((path, error)))
    assert [(path.name, str(error).split(":")[0]) for path, error in reported] == [
        ("asahi.toml", "asahi.toml"),
        ("broken.toml", "broken.toml"),
    ]
    assert "patterns.deny[0]: bad regex" in str(reported[1][1])
    assert "example" in profiles and "broken" not in profiles
    # No silent fallback to the patterns the user set out to replace.
    assert "asahi" not in profiles and "cnn" in profiles


def test_a_missing_user_directory_can_be_reported(tmp_path: Path) -> None:
    reported: list[Path] = []
    profiles = load_profiles(tmp_path / "nowhere", on_error=lambda path, _: reported.append(path))
    assert reported == [tmp_path / "nowhere"]
    assert profiles == BUNDLED


# --- patterns run on RE2 -----------------------------------------------------------------


def test_a_backtracking_profile_pattern_classifies_in_bounded_time() -> None:
    text = EXAMPLE_TOML.replace(
        r"'^https://www\.example\.org/(?:[a-z]+/)?\d{4}/[a-z-]+\.html$'",
        r"'^https://www\.example\.org/(?:[a-z]+/)?\d{4}/(\w+-?)+\.html$'",
    )
    profile = example(text)
    started = time.monotonic()
    assert not profile.is_article("https://www.example.org/2024/" + "a" * 25 + "!")
    assert time.monotonic() - started < 0.5  # Python's re: about 4 s, doubling a letter
    assert profile.is_article("https://www.example.org/2024/some-story.html")


def test_a_profile_pattern_re2_cannot_run_is_an_error_naming_the_field() -> None:
    text = EXAMPLE_TOML.replace("deny = ['/video/']", "deny = ['/(?!news)[a-z]+/video/']")
    with pytest.raises(
        SiteProfileError, match=r"^example\.toml: patterns\.deny\[0\]: .* needs a feature .*RE2"
    ):
        example(text)
