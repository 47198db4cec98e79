"""Renders a shipped recipe for a kernel with some parameters changed from
their defaults: render_recipe.py AGENT_DIR RECIPE KERNEL NAME=VALUE..."""
import sys

sys.path.insert(0, sys.argv[1])
from tiletag_agent import recipes  # noqa: E402

recipe = {r.name: r for r in recipes.load([sys.argv[1] + "/recipes"])}[sys.argv[2]]
params = recipe.defaults()
for assignment in sys.argv[4:]:
    name, value = assignment.split("=")
    params[name] = type(recipe.params[name].default)(value)
print(recipe.render(params, sys.argv[3]))
