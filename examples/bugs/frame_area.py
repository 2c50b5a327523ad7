"""A picture frame: its size, and the glass it needs."""


class Frame:
    def __init__(self, width, height, border=0):
        self.width = width
        self.height = height
        self.border = border

    @property
    def outer_width(self):
        return self.width + 2 * self.border

    @property
    def outer_height(self):
        return self.height + 2 * self.border

    @property
    def glass_area(self):
        return self.width * self.width

    def fits(self, wall_width, wall_height):
        return self.outer_width <= wall_width and self.outer_height <= wall_height
