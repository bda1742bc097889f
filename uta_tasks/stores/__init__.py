"""Storage shared by the library and the commands: :mod:`.sqlite` (the project's sqlite files)."""
