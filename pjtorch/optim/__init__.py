"""`torch.optim`: optimizers whose step is one compiled update per parameter group, and lr schedules."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
