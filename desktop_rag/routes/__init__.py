"""Question routes: which kind of question this is (router.py), and one small component per
kind behind one interface (base.py's `Route`). A lookup is answered from a few retrieved
passages; a list or count must read every passage in scope (exhaustive.py), since a top-k sample
cannot count. Qt-free: the CLI and the GUI reach it through the answer service."""
