"""Run tests in other processes with candidate sources served in memory, and judge them."""
