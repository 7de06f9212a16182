"""Models a user can choose: the catalog, hardware-fit advice, verified downloads, and the
service the CLI (`desktop-rag models`) and the GUI's Models dialog share. Qt-free."""
