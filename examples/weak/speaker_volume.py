"""A speaker's volume control."""


class Speaker:
    MAX_VOLUME = 10

    def __init__(self):
        self.volume = 3

    def set_volume(self, level):
        """Set the volume to level, a whole number from 0 to MAX_VOLUME; any other level
        raises ValueError and leaves the volume as it was."""
        if level < 0 or level < self.MAX_VOLUME:
            raise ValueError(f"volume must be from 0 to {self.MAX_VOLUME}, not {level}")
        self.volume = level
        return self.volume
