"""tools/file_parts.py: the GPU bundle's file parts (tools/gpu_bundle.py)."""

import os

import numpy as np
import torch
from safetensors.torch import load_file
from safetensors.torch import save_file

from tools.file_parts import float16_copy
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


def test_float16_copy_rounds_float32_and_keeps_the_rest(tmp_path):
    """Written by numpy, read back by safetensors' PyTorch loader (as transformers reads it):
    the float32 tensor comes back as float16 within half a float16 step (2^-11 relative, or half the smallest
    subnormal), the
    integer tensor unchanged."""
    torch.manual_seed(0)
    weights = torch.randn(64, 48) * 3
    ids = torch.arange(7, dtype=torch.int64)
    save_file({"w": weights, "position_ids": ids}, str(tmp_path / "a.safetensors"))
    float16_copy(str(tmp_path / "a.safetensors"), str(tmp_path / "b.safetensors"))
    back = load_file(str(tmp_path / "b.safetensors"))
    assert back["w"].dtype == torch.float16 and back["position_ids"].dtype == torch.int64
    assert torch.equal(back["position_ids"], ids)
    error = (back["w"].float() - weights).abs().numpy()
    assert np.all(error <= np.abs(weights.numpy()) * 2.0 ** -11 + 2.0 ** -25), error.max()
    assert (tmp_path / "b.safetensors").stat().st_size < 0.6 * (tmp_path / "a.safetensors").stat().st_size
