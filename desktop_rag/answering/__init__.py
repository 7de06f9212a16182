"""Answering: what turns passages into a checked answer (prompts, the support check, calculations,
table reading) and the pipeline of typed steps that runs them. Calls the model only through the
engine protocol; never imports Qt or an adapter's heavy library."""
