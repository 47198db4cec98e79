"""The planner: a UCB1 bandit over recipes, local search over each recipe's
parameters around its best verified point, and repairs driven by the reason
a candidate was rejected. Deterministic for a seed; it never proposes a
candidate it has seen."""

import json
import math
import random


def candidate_key(recipe, params):
    return json.dumps({"recipe": recipe, "params": params}, sort_keys=True)


class Planner:
    def __init__(self, recipes, seed, exploration=1.0, exploit=0.7):
        self.recipes = {r.name: r for r in recipes}
        self.order = [r.name for r in recipes]
        self.rng = random.Random(seed)
        self.exploration = exploration
        self.exploit = exploit
        self.seen = set()
        self.tries = {n: 0 for n in self.order}
        self.reward = {n: 0.0 for n in self.order}
        self.best = {}          # recipe -> (time_us, params)
        self.best_time = None
        self.repairs = []       # (recipe, params, why)
        self.exhausted = set()

    # -- learning -------------------------------------------------------
    def observe(self, attempt):
        """Learns from a finished attempt (also when replaying a report)."""
        key = attempt["key"]
        self.seen.add(key)
        name = attempt.get("recipe")
        if name not in self.recipes:
            return  # an LLM's script or a recipe no longer loaded
        self.tries[name] += 1
        if attempt["status"] == "verified":
            t = attempt["score"]["time_us"]
            if self.best_time is None or t < self.best_time:
                self.best_time = t
            if name not in self.best or t < self.best[name][0]:
                self.best[name] = (t, attempt["params"])
            self.reward[name] += self.best_time / t
            return
        change = self.recipes[name].repair.get(attempt.get("reason"))
        if change:
            params = dict(attempt["params"])
            recipe = self.recipes[name]
            for p, step in sorted(change.items()):
                values = recipe.params[p].values
                i = values.index(params[p]) + step
                if not 0 <= i < len(values):
                    return  # no repair within the parameter's range
                params[p] = values[i]
            self.repairs.append((name, params, "repair of %s (%s)"
                                 % (attempt["reason"], ", ".join(
                                     "%s %+d" % kv for kv in sorted(change.items())))))

    # -- proposing ------------------------------------------------------
    def _unseen(self, name, params):
        return candidate_key(name, params) not in self.seen

    def _ucb(self, name):
        total = sum(self.tries.values()) or 1
        n = self.tries[name]
        return self.reward[name] / n + self.exploration * math.sqrt(2 * math.log(total) / n)

    def _random_point(self, recipe):
        return {n: self.rng.choice(p.values) for n, p in sorted(recipe.params.items())}

    def _from_recipe(self, name):
        recipe = self.recipes[name]
        if self._unseen(name, recipe.defaults()):
            return recipe.defaults(), "defaults"
        if name in self.best and self.rng.random() < self.exploit:
            base = self.best[name][1]
            moves = [(p, v) for p, param in sorted(recipe.params.items())
                     for v in param.neighbours(base[p])]
            self.rng.shuffle(moves)
            for p, v in moves:
                params = dict(base, **{p: v})
                if self._unseen(name, params):
                    return params, "local search: %s %s -> %s" % (p, base[p], v)
        for _ in range(64):
            params = self._random_point(recipe)
            if self._unseen(name, params):
                return params, "random point"
        # Few points left: enumerate them in order.
        points = [{}]
        for p, param in sorted(recipe.params.items()):
            points = [dict(pt, **{p: v}) for pt in points for v in param.values]
        for params in points:
            if self._unseen(name, params):
                return params, "last unseen point"
        self.exhausted.add(name)
        return None, None

    def propose(self, pending=()):
        """The next candidate: (recipe, params, why), or None when every
        recipe's space is exhausted. `pending` are keys being evaluated."""
        busy = set(pending)
        while self.repairs:
            name, params, why = self.repairs.pop(0)
            key = candidate_key(name, params)
            if key not in self.seen and key not in busy:
                self.seen.add(key)
                return name, params, why
        while True:
            live = [n for n in self.order if n not in self.exhausted]
            if not live:
                return None
            untried = [n for n in live if self.tries[n] == 0 and
                       not any(json.loads(k)["recipe"] == n for k in self.seen)]
            name = untried[0] if untried else max(live, key=lambda n: (self._ucb(n) if self.tries[n] else float("inf"), -self.order.index(n)))
            params, why = self._from_recipe(name)
            if params is not None:
                key = candidate_key(name, params)
                self.seen.add(key)
                return name, params, why
