"""The game's answers as files: truth export, check-truth, the fixture export and the run across volumes."""
