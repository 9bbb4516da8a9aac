"""`torch.optim`: optimizers whose step is one compiled update per parameter group, and lr schedules."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .lbfgs import LBFGS
from .more import Adadelta, Adagrad, Adamax, NAdam, RAdam, Rprop
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "RAdam", "Rprop", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
