"""Checksum manifests against coreutils' `sha256sum` (an independent implementation): what we
write, `sha256sum -c` accepts; what `sha256sum` writes, we read; a flipped byte anywhere in a
file is named in one line."""

import os
import subprocess

import pytest

from keras_bert import integrity


def _files(folder):
    (folder / "variables").mkdir()
    (folder / "model.tflite").write_bytes(os.urandom(300_000))
    (folder / "variables" / "variables.data-00000-of-00001").write_bytes(os.urandom(5000))
    (folder / "vocab.txt").write_text("[PAD]\nhello\n", encoding="utf-8")


def test_written_manifest_is_what_sha256sum_writes_and_checks(tmp_path):
    _files(tmp_path)
    integrity.write_manifest(tmp_path, ["model.tflite", "variables", "vocab.txt"])
    ours = (tmp_path / integrity.MANIFEST).read_text()
    theirs = subprocess.run(
        ["sha256sum", "model.tflite", "variables/variables.data-00000-of-00001", "vocab.txt"],
        cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert sorted(ours.splitlines()) == sorted(theirs.splitlines())
    check = subprocess.run(["sha256sum", "-c", integrity.MANIFEST], cwd=tmp_path,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert integrity.verify_files(tmp_path) == 3


def test_a_manifest_sha256sum_wrote_is_read(tmp_path):
    _files(tmp_path)
    listing = subprocess.run(["sha256sum", "-b", "model.tflite", "vocab.txt"], cwd=tmp_path,
                             capture_output=True, text=True, check=True).stdout
    (tmp_path / integrity.MANIFEST).write_text(listing)
    assert integrity.verify_files(tmp_path) == 2
    assert integrity.verify_file(tmp_path / "vocab.txt") == 1


@pytest.mark.parametrize("offset", [0, 150_000, 299_999])
def test_one_flipped_byte_is_named_in_one_line(tmp_path, offset):
    _files(tmp_path)
    integrity.write_manifest(tmp_path, ["model.tflite", "vocab.txt"])
    model = tmp_path / "model.tflite"
    data = bytearray(model.read_bytes())
    data[offset] ^= 0x01
    model.write_bytes(bytes(data))
    assert subprocess.run(["sha256sum", "--quiet", "-c", integrity.MANIFEST],
                          cwd=tmp_path, capture_output=True).returncode != 0
    with pytest.raises(integrity.IntegrityError, match=r"model\.tflite is corrupted") as error:
        integrity.verify_file(model)
    assert "\n" not in str(error.value)
    assert integrity.verify_file(tmp_path / "vocab.txt") == 1  # the other file still checks


def test_missing_unlisted_and_malformed(tmp_path):
    _files(tmp_path)
    integrity.write_manifest(tmp_path, ["model.tflite", "vocab.txt"])
    with pytest.raises(integrity.IntegrityError, match="is not listed"):
        integrity.verify_files(tmp_path, ["variables/variables.data-00000-of-00001"])
    (tmp_path / "vocab.txt").unlink()
    with pytest.raises(integrity.IntegrityError, match="listed in .* but missing"):
        integrity.verify_files(tmp_path)
    (tmp_path / integrity.MANIFEST).write_text("not a digest  model.tflite\n")
    with pytest.raises(integrity.IntegrityError, match=r"SHA256SUMS:1: not a sha256sum line"):
        integrity.verify_files(tmp_path)


def test_no_manifest_is_nothing_to_check(tmp_path):
    _files(tmp_path)
    assert integrity.verify_files(tmp_path) == 0
    assert integrity.verify_file(tmp_path / "model.tflite") == 0


def test_refreshing_keeps_other_entries(tmp_path):
    _files(tmp_path)
    integrity.write_manifest(tmp_path, ["vocab.txt"])
    integrity.write_manifest(tmp_path, ["model.tflite"])
    assert sorted(integrity.read_manifest(tmp_path)) == ["model.tflite", "vocab.txt"]
    (tmp_path / "vocab.txt").write_text("changed\n")
    integrity.write_manifest(tmp_path, ["vocab.txt"])
    assert integrity.verify_files(tmp_path) == 2
