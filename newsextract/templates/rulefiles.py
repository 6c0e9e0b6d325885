"""Where a site's rule files live and how they are written: file names that no two sites
share, lock files, and atomic writes with the permissions any program's files get.

One file a site, named by an injective function of the site's name (:func:`file_key`: plain
host names as they are, others in IDNA or escaped). Writes are atomic (a temporary file
renamed over the old one) and serialised by a lock file, which its holder removes after use.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import secrets
from pathlib import Path

#: Longer file names end in a digest of the site's name (file systems stop at 255 bytes).
MAX_FILE_KEY_CHARS_DEFAULT = 200
RULES_SUFFIX = ".rules.xml"
LOCK_SUFFIX = ".rules.lock"
HISTORY_SUFFIX = ".history.json"
_PLAIN_NAME = re.compile(r"[a-z0-9.-]+")
_LEGACY_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def site_file(rules_dir: Path, site: str) -> Path:
    """The file holding one site's rules."""
    return rules_dir / f"{file_key(site)}{RULES_SUFFIX}"


def file_key(site: str) -> str:
    """The site's name as a file name, different for every two names of different sites.

    A plain host name (lower-case letters, digits, dots and hyphens) is kept as it is; an
    internationalised one is written in IDNA when it converts there and back unchanged;
    anything else has each other character escaped as ``_`` and the hex of its UTF-8 bytes
    (``_`` itself too, so an escape is never ambiguous). A host and its IDNA form name the
    same site, and the same file.

    >>> file_key("asahi.com"), file_key("朝日.jp"), file_key("毎日.jp")
    ('asahi.com', 'xn--wgvz0a.jp', 'xn--wgv94k.jp')
    >>> file_key("a/b"), file_key("a b"), file_key("a_b"), file_key("Asahi.com")
    ('a_2fb', 'a_20b', 'a_5fb', '_41sahi.com')
    """
    key = _plain_or_idna(site)
    if key is None:
        key = "".join(
            char if _PLAIN_NAME.fullmatch(char) and (index or char != ".") else _escaped(char)
            for index, char in enumerate(site)
        )
    if len(key) > MAX_FILE_KEY_CHARS_DEFAULT:
        digest = hashlib.sha256(site.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        key = f"{key[: MAX_FILE_KEY_CHARS_DEFAULT - 33]}~{digest}"  # "~" is never escaped
    return key or "_"


def _plain_or_idna(site: str) -> str | None:
    if _PLAIN_NAME.fullmatch(site) and not site.startswith("."):
        return site
    if site.isascii():
        return None
    try:
        ascii_form = site.encode("idna").decode("ascii")
        if ascii_form.encode("ascii").decode("idna") != site:
            return None  # IDNA changes it (case, width): the name is escaped instead
    except UnicodeError:
        return None
    return ascii_form if _PLAIN_NAME.fullmatch(ascii_form) else None


def _escaped(char: str) -> str:
    return "".join(f"_{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))


def legacy_site_file(rules_dir: Path, site: str) -> Path:
    """Where older versions kept a site's rules: a name that several sites could share
    (朝日.jp and 毎日.jp both ``jp.rules.xml``), read only when it names the site inside."""
    name = _LEGACY_UNSAFE.sub("_", site).strip("._") or "site"
    return rules_dir / f"{name}{RULES_SUFFIX}"


def history_file(rules_dir: Path, site: str) -> Path:
    """Beside the rules: a bounded sample of earlier results of the site, for re-induction."""
    return rules_dir / f"{file_key(site)}{HISTORY_SUFFIX}"


def lock_file(path: Path) -> Path:
    """The lock a rule file is written under: ``SITE.rules.lock`` beside ``SITE.rules.xml``."""
    name = path.name.removesuffix(RULES_SUFFIX).removesuffix(".xml")
    return path.with_name(f"{name}{LOCK_SUFFIX}")


# -- locks and atomic writes --------------------------------------------------------------


def acquire_lock(lock: Path, blocking: bool) -> int | None:
    """An open descriptor holding the lock file's exclusive lock (None: busy, not blocking).

    Its holder removes a lock file before releasing it, so a lock taken on a file that is no
    longer the one at its path (removed meanwhile, perhaps made again) is dropped and taken
    anew: only the holder of the file at the path holds the lock."""
    while True:
        handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(handle)
            return None
        if _is_at(handle, lock):
            return handle
        os.close(handle)


def _is_at(handle: int, path: Path) -> bool:
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(handle)
    return (held.st_dev, held.st_ino) == (found.st_dev, found.st_ino)


def release_lock(handle: int, lock: Path) -> None:
    """Remove the lock file, then release it: lock files do not pile up in the directory."""
    try:
        lock.unlink(missing_ok=True)
    finally:
        os.close(handle)


def sweep_stale_locks(rules_dir: Path) -> int:
    """Remove the lock files no process holds (left by versions that kept them, or by a
    crawl killed while writing); a lock in use is left alone. Returns how many went."""
    removed = 0
    for lock in rules_dir.glob(f"*{LOCK_SUFFIX}"):
        try:
            handle = acquire_lock(lock, blocking=False)
        except OSError:
            continue
        if handle is not None:
            release_lock(handle, lock)
            removed += 1
    return removed


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Write a temporary file and rename it over ``path``. The file is created with mode 0666
    less the umask, as any program's files are (``mkstemp`` makes them 0600, which keeps a
    cron job of another account from reading the rules). ``durable``: the data reach the
    disk before the rename (an fsync, 4-8 ms); without it a power cut may leave the file
    empty, never half-written for a reader."""
    while True:
        temporary = path.with_name(f"{path.name}.{secrets.token_hex(8)}.tmp")
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            if durable:
                os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
