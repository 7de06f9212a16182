"""Clone a GGUF model's shape without its weights, so a GPU machine that cannot receive the
real 1 GB file can still run the same architecture at the same quantization.

extract SRC.gguf TEMPLATE.json.gz   keeps every metadata key (tokenizer, chat template) and, per
                                    tensor, its shape, type and the first block-aligned bytes;
build TEMPLATE.json.gz OUT.gguf     writes a GGUF whose tensors are those bytes tiled to full
                                    size: valid quantized blocks, same speed, meaningless text.
Needs gguf-py (vendor/llama.cpp/gguf-py in the llama-cpp-python sdist) on PYTHONPATH.
"""

from __future__ import annotations

import base64
import gzip
import json
import sys

import gguf
import numpy as np

SAMPLE_BYTES = 1 << 14


def extract(src: str, template: str) -> None:
    reader = gguf.GGUFReader(src)
    fields = []
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == gguf.Keys.General.ARCHITECTURE:
            continue
        types = [int(t) for t in field.types]
        fields.append({"name": field.name, "types": types, "value": field.contents()})
    tensors = []
    for t in reader.tensors:
        raw = np.asarray(t.data).reshape(-1).view(np.uint8)
        _, type_size = gguf.GGML_QUANT_SIZES[t.tensor_type]
        keep = max(SAMPLE_BYTES // type_size, 1) * type_size  # whole blocks only
        tensors.append({
            "name": t.name, "shape": list(t.data.shape), "dtype": str(t.data.dtype),
            "nbytes": int(t.data.nbytes), "type": int(t.tensor_type),
            "sample": base64.b64encode(raw[:keep].tobytes()).decode(),
        })
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    with gzip.open(template, "wt") as f:
        json.dump({"arch": arch, "fields": fields, "tensors": tensors}, f)


def build(template: str, out: str) -> None:
    with gzip.open(template, "rt") as f:
        spec = json.load(f)
    writer = gguf.GGUFWriter(out, spec["arch"])
    for field in spec["fields"]:
        vtype = gguf.GGUFValueType(field["types"][0])
        sub = gguf.GGUFValueType(field["types"][-1]) if vtype == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field["name"], field["value"], vtype, sub_type=sub)
    for t in spec["tensors"]:
        writer.add_tensor_info(t["name"], t["shape"], np.dtype(t["dtype"]), t["nbytes"],
                               gguf.GGMLQuantizationType(t["type"]))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for t in spec["tensors"]:
        sample = np.frombuffer(base64.b64decode(t["sample"]), dtype=np.uint8)
        data = np.resize(sample, t["nbytes"]).view(np.dtype(t["dtype"])).reshape(t["shape"])
        writer.write_tensor_data(data)
    writer.close()


if __name__ == "__main__":
    {"extract": extract, "build": build}[sys.argv[1]](sys.argv[2], sys.argv[3])
