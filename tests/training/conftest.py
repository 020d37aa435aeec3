"""Training tests run torch on one thread, as the trainer does (torch's default threading
is many times slower on a small shared CPU)."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    import torch

    torch.set_num_threads(1)
