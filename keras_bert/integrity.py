"""Checksum manifests: a `SHA256SUMS` file beside exported and shipped models, checked on load.

Neither TFLite flatbuffers, SavedModel variables nor safetensors carry a checksum of their
tensor bytes, so a flipped bit in a weight loads silently and gives wrong answers. The export
writes a manifest in `sha256sum`'s format (`<64 hex>  <relative path>` per line, so
`sha256sum -c SHA256SUMS` checks it too) and every loader that finds one verifies the files it
reads against it, with a one-line error naming the file.

Standard library only, and nothing of keras_bert at import time: the TF Serving stand-in loads
this file by path, without the package.
"""

import hashlib
import os

MANIFEST = "SHA256SUMS"
_CHUNK = 1 << 20


class IntegrityError(ValueError):
    """A file that does not match its manifest (or a manifest that cannot be read)."""


def sha256_file(path):
    """The hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_manifest(folder):
    """`{relative path: hex digest}` of `folder`'s manifest; None when it has none."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.exists(path):
        return None
    entries = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            # "<digest>  <name>" (text mode) or "<digest> *<name>" (sha256sum -b).
            digest, mode, name = line[:64], line[64:66], line[66:]
            if mode not in ("  ", " *") or not _is_hex(digest) or not name:
                raise IntegrityError(f"{path}:{number}: not a sha256sum line ({line[:80]!r}); "
                                     "regenerate the manifest or delete it.")
            entries[name] = digest.lower()
    return entries


def write_manifest(folder, names):
    """Adds (or refreshes) the digests of `names` (paths relative to `folder`, or folders in
    it, taken recursively) to `folder`'s manifest; other entries are kept. Returns its path."""
    from keras_bert.atomic_files import atomic_open  # here: importing this file needs only stdlib

    entries = read_manifest(folder) or {}
    for name in names:
        full = os.path.join(folder, name)
        files = [full] if os.path.isfile(full) else [
            os.path.join(root, f) for root, _, fs in os.walk(full) for f in fs]
        for path in files:
            relative = os.path.relpath(path, folder).replace(os.sep, "/")
            if relative != MANIFEST:
                entries[relative] = sha256_file(path)
    path = os.path.join(folder, MANIFEST)
    with atomic_open(path, encoding="utf-8") as f:
        f.writelines(f"{digest}  {name}\n" for name, digest in sorted(entries.items()))
    return path


def verify_files(folder, names=None):
    """Checks files of `folder` against its manifest: those listed in `names` (relative paths),
    or every entry. Returns the number checked; 0 when there is no manifest (it is optional).

    Raises:
        IntegrityError: a file differs from its digest, a named file has no entry, or a listed
            file is missing; the message names the file and what to do.
    """
    entries = read_manifest(folder)
    if entries is None:
        return 0
    manifest = os.path.join(folder, MANIFEST)
    for name in sorted(entries) if names is None else names:
        path = os.path.join(folder, name)
        if name not in entries:
            raise IntegrityError(f"{path} is not listed in {manifest}: it was added after the "
                                 "export; re-export, or regenerate the manifest if it is yours.")
        if not os.path.exists(path):
            raise IntegrityError(f"{path} is listed in {manifest} but missing: the copy is "
                                 "incomplete; copy the whole export again.")
        got = sha256_file(path)
        if got != entries[name]:
            raise IntegrityError(
                f"{path} is corrupted: its SHA-256 is {got[:16]}..., {manifest} says "
                f"{entries[name][:16]}...; restore the file or export it again.")
    return len(entries) if names is None else len(names)


def verify_file(path):
    """Checks one file against the manifest in its folder, if there is one (0 or 1 checked)."""
    folder, name = os.path.split(os.path.abspath(path))
    entries = read_manifest(folder)
    if entries is None:
        return 0
    return verify_files(folder, [name])


def _is_hex(text):
    return len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text)
