"""`torch.optim`: optimizers whose step is one compiled update per parameter group, and lr schedules."""
from . import lr_scheduler, swa_utils
from .adam import Adam, AdamW
from .extra import ASGD, Adafactor, Muon, SparseAdam
from .lbfgs import LBFGS
from .more import Adadelta, Adagrad, Adamax, NAdam, RAdam, Rprop
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Muon", "NAdam", "RAdam", "Rprop",
           "Optimizer", "RMSprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils"]
