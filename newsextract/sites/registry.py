"""The registry of site profiles: the bundled ones, overridden by a user's directory."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path

from newsextract.exceptions import SiteProfileError
from newsextract.sites.profile import SiteProfile, parse_profile

PROFILE_SUFFIX = ".toml"

#: Told of a user profile file (or directory) that cannot be loaded, instead of raising.
ProfileErrorHandler = Callable[[Path, SiteProfileError], None]


def load_profile(path: Path) -> SiteProfile:
    """Load and validate one profile file; the file name (without .toml) is its name."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SiteProfileError(f"{path.name}: cannot read: {exc}") from exc
    return parse_profile(text, path.name)


def load_profiles(
    extra_dir: Path | str | None = None, on_error: ProfileErrorHandler | None = None
) -> dict[str, SiteProfile]:
    """Every bundled profile, by name; a ``extra_dir`` file of the same name overrides one.

    ``extra_dir`` is the user's profile directory (the environment variable
    ``NEWSEXTRACT_PROFILES_DIR``); its ``*.toml`` files are validated like the bundled ones.
    A file that fails raises SiteProfileError, or, given ``on_error``, is reported to it and
    left out together with the bundled profile of its name: a crawl never falls back
    silently to the patterns its user set out to replace.
    """
    profiles = dict(_bundled())
    if extra_dir:
        loaded, broken = _load_dir(Path(extra_dir), on_error)
        profiles.update(loaded)
        for name in broken:
            profiles.pop(name, None)
    return dict(sorted(profiles.items()))


def get_profile(name: str, extra_dir: Path | str | None = None) -> SiteProfile:
    """The profile called ``name``; SiteProfileError lists the known names if there is none."""
    profiles = load_profiles(extra_dir)
    try:
        return profiles[name]
    except KeyError:
        known = ", ".join(profiles)
        raise SiteProfileError(f"unknown site profile {name!r}; known: {known}") from None


@cache
def _bundled() -> tuple[tuple[str, SiteProfile], ...]:
    # Profiles are frozen, so the bundled ones are parsed once per process.
    folder = resources.files(__package__) / "profiles"
    entries = sorted(
        (e for e in folder.iterdir() if e.name.endswith(PROFILE_SUFFIX)), key=lambda e: e.name
    )
    loaded = (parse_profile(e.read_text(encoding="utf-8"), e.name) for e in entries)
    return tuple((p.name, p) for p in loaded)


def _load_dir(
    folder: Path, on_error: ProfileErrorHandler | None
) -> tuple[dict[str, SiteProfile], list[str]]:
    """The profiles of a user directory, and the names of its files that failed."""
    if not folder.is_dir():
        error = SiteProfileError(f"site profile directory {folder} does not exist")
        if on_error is None:
            raise error
        on_error(folder, error)
        return {}, []
    loaded: dict[str, SiteProfile] = {}
    broken: list[str] = []
    for path in sorted(folder.glob("*" + PROFILE_SUFFIX)):
        try:
            profile = load_profile(path)
        except SiteProfileError as error:
            if on_error is None:
                raise
            on_error(path, error)
            broken.append(path.name.removesuffix(PROFILE_SUFFIX))
            continue
        loaded[profile.name] = profile
    return loaded, broken
