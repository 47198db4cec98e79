"""pytest setup: the DSL examples importable, the repository's paths, and
random inputs. Run by scripts/test.sh with PYTHONPATH=build/python."""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "examples")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def uniform(rng, *shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(np.float32)
