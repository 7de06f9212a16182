"""llama-cpp-python loads libllama/libggml* with ctypes from llama_cpp/lib at run time, and its
chat formats use Jinja2 templates."""

from PyInstaller.utils.hooks import collect_dynamic_libs, copy_metadata

binaries = collect_dynamic_libs("llama_cpp")
hiddenimports = ["llama_cpp.llama_chat_format", "jinja2"]
datas = copy_metadata("llama_cpp_python")
