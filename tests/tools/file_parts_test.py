"""tools/file_parts.py: the GPU bundle's file parts (tools/gpu_bundle.py)."""

import os

from tools.file_parts import split_file


def test_gpu_bundle_parts_concatenate_back_to_the_file(tmp_path):
    data = os.urandom(2500)
    source = tmp_path / "model.safetensors"
    source.write_bytes(data)
    parts = split_file(str(source), str(tmp_path / "bundle"), part_bytes=1000, start_part=2)
    assert [os.path.basename(p) for p in parts] == ["part02", "part03", "part04"]
    pieces = [open(os.path.join(p, f"model.safetensors.{i:02d}"), "rb").read()
              for i, p in zip(range(2, 5), parts)]
    assert [len(p) for p in pieces] == [1000, 1000, 500]
    assert b"".join(pieces) == data
