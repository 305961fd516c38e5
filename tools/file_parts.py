"""Files in byte ranges, for carrying under a size limit (`tools/gpu_bundle.py`). No flags here,
so tests can import it."""

import os


def split_file(path, parts_dir, part_bytes, start_part=0):
    """Splits `path` into byte ranges of at most `part_bytes`, one per `part<i>/` folder from
    `start_part`; returns the part folders used. `cat` of the pieces in order is the file."""
    used = []
    with open(path, "rb") as f:
        index = start_part
        while True:
            chunk = f.read(part_bytes)
            if not chunk:
                break
            folder = os.path.join(parts_dir, f"part{index:02d}")
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, f"{os.path.basename(path)}.{index:02d}"), "wb") as out:
                out.write(chunk)
            used.append(folder)
            index += 1
    return used


def float16_copy(source, destination):
    """The safetensors file `source` with every float32 tensor rounded to float16, written at
    `destination` (other dtypes kept); returns `destination`. Halves a checkpoint to carry."""
    import numpy as np
    from safetensors.numpy import load_file
    from safetensors.numpy import save_file

    tensors = {name: value.astype(np.float16) if value.dtype == np.float32 else value
               for name, value in load_file(source).items()}
    save_file(tensors, destination, metadata={"format": "pt"})
    return destination
