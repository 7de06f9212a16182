"""tiktoken finds its encodings through the `tiktoken_ext` namespace package with
pkgutil.iter_modules, which only sees plugin modules that exist as files: ship them as source."""

hiddenimports = ["tiktoken_ext", "tiktoken_ext.openai_public"]
module_collection_mode = {"tiktoken_ext": "py"}
