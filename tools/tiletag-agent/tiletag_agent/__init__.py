"""tiletag-agent: searches transform scripts for the fastest kernel that the
TileTag checkers prove correct (docs/Agent.md)."""
