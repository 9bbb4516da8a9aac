"""RNN, LSTM and GRU (multi-layer, bidirectional, LSTM projections, packed sequences) and their cells.

Each step is composed from linear, sigmoid and tanh, so gradients flow through the ordinary ops;
the input projection of a whole sequence is one matmul per layer and direction. Packed
sequences run padded, with each sequence's state frozen past its length.
"""
from __future__ import annotations

import math
import numbers
import warnings

from ... import dispatch
from ...amp import autocast_mode
from ...ops.registry import Op
from ...tensor import dtypes, factories
from ...tensor.tensor import Tensor
from .. import functional as F, init
from .._utils import size_at
from ..parameter import Parameter
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _rnn_cell(x_proj: Tensor, state, w_hh: Tensor, b_hh, activation) -> Tensor:
    return activation(x_proj + F.linear(state, w_hh, b_hh))


def _tanh_cell(x_proj, state, w_hh, b_hh, w_hr=None):
    return _rnn_cell(x_proj, state, w_hh, b_hh, F.tanh)


def _relu_cell(x_proj, state, w_hh, b_hh, w_hr=None):
    return _rnn_cell(x_proj, state, w_hh, b_hh, F.relu)


def _lstm_cell(x_proj: Tensor, state: tuple, w_hh: Tensor, b_hh, w_hr=None) -> tuple:
    h, c = state
    i, f, g, o = (x_proj + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
    h = F.sigmoid(o) * F.tanh(c)
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _gru_cell(x_proj: Tensor, state: Tensor, w_hh: Tensor, b_hh, w_hr=None) -> Tensor:
    x_r, x_z, x_n = x_proj.chunk(3, -1)
    h_r, h_z, h_n = F.linear(state, w_hh, b_hh).chunk(3, -1)
    r, z = F.sigmoid(x_r + h_r), F.sigmoid(x_z + h_z)
    n = F.tanh(x_n + r * h_n)
    return (1 - z) * n + z * state


_CELLS = {"LSTM": _lstm_cell, "GRU": _gru_cell, "RNN_TANH": _tanh_cell, "RNN_RELU": _relu_cell}

# PyTorch's CPU LSTM runs float32 layers without projections through oneDNN, one op per layer and direction: that
# layer's output has grad_fn MkldnnRnnLayerBackward0.
_ONEDNN_LAYER = Op("mkldnn_rnn_layer", lambda x: x, grad_name="MkldnnRnnLayerBackward0", promote="none")


def _select(mask: Tensor | None, new, old):
    """The new state where the step is inside the sequence (mask), the old one past its end."""
    if mask is None:
        return new
    if isinstance(new, tuple):
        return tuple(_select(mask, n, o) for n, o in zip(new, old))
    return new.where(mask, old)


class RNNBase(Module):
    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        _check_rnn_arguments(hidden_size, num_layers, dropout, proj_size)
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(directions):
                width = input_size if layer == 0 else real_hidden * directions
                shapes = [("weight_ih", (gate_size, width)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(factories.empty(shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        per = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional else 1))
        weights = self._flat_weights
        return [weights[i:i + per] for i in range(0, len(weights), per)]

    def flatten_parameters(self) -> None:
        """Nothing to do: weights are never packed into one buffer here."""

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        options = [("proj_size", self.proj_size != 0), ("num_layers", self.num_layers != 1),
                   ("bias", self.bias is not True), ("batch_first", self.batch_first is not False),
                   ("dropout", self.dropout != 0), ("bidirectional", self.bidirectional is not False)]
        return text + "".join(f", {name}={getattr(self, name)}" for name, shown in options if shown)

    def _layer_weights(self, layer: int, direction: int) -> list:
        suffix = "_reverse" if direction == 1 else ""
        get = lambda kind: getattr(self, f"{kind}_l{layer}{suffix}", None)  # noqa: E731
        biases = (get("bias_ih"), get("bias_hh")) if self.bias else (None, None)
        return [get("weight_ih"), get("weight_hh"), *biases, get("weight_hr") if self.proj_size else None]

    def _run(self, input: Tensor, hidden: list, lengths: Tensor | None) -> tuple:
        """input (T, B, F) and per-(layer, direction) initial states -> output and final states."""
        from ...tensor import functions
        cell = _CELLS[self.mode]
        directions = 2 if self.bidirectional else 1
        steps = input.shape[0]
        masks = None if lengths is None else [(lengths > t).unsqueeze(-1) for t in range(steps)]
        finals, layer_input = [], input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(layer, direction)
                projected = F.linear(layer_input, w_ih, b_ih)
                state = hidden[layer * directions + direction]
                order = range(steps - 1, -1, -1) if direction else range(steps)
                collected = [None] * steps
                for t in order:
                    mask = None if masks is None else masks[t]
                    state = _select(mask, cell(projected[t], state, w_hh, b_hh, w_hr), state)
                    out = state[0] if isinstance(state, tuple) else state
                    collected[t] = out if mask is None else out * mask
                outputs.append(self._layer_output(functions.stack(collected, 0)) if steps else projected[..., :0])
                finals.append(state)
            layer_input = outputs[0] if directions == 1 else functions.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, finals

    def _layer_output(self, output: Tensor) -> Tensor:
        if self.mode == "LSTM" and not self.proj_size and output.dtype is dtypes.float32 and output.shape[1]:
            return dispatch.apply(_ONEDNN_LAYER, (output,), ())
        return output

    def _initial(self, hx, batch: int, input: Tensor) -> list:
        """Per-(layer, direction) initial states from hx (zeros when None)."""
        count = self.num_layers * (2 if self.bidirectional else 1)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if self.mode == "LSTM":
            if hx is None:
                hx = (factories.zeros(count, batch, real_hidden, dtype=input.dtype, device=input.device),
                      factories.zeros(count, batch, self.hidden_size, dtype=input.dtype, device=input.device))
            _check_hidden(hx[0], (count, batch, real_hidden), "Expected hidden[0] size {}, got {}")
            _check_hidden(hx[1], (count, batch, self.hidden_size), "Expected hidden[1] size {}, got {}")
            return [(hx[0][i], hx[1][i]) for i in range(count)]
        if hx is None:
            hx = factories.zeros(count, batch, real_hidden, dtype=input.dtype, device=input.device)
        _check_hidden(hx, (count, batch, real_hidden), "Expected hidden size {}, got {}")
        return [hx[i] for i in range(count)]

    def forward(self, input, hx=None):
        from ..utils.rnn import PackedSequence
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
        batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        hx = _batch_hidden(hx, batched)
        if not batched:
            input = input.unsqueeze(batch_dim)
        self._check_dtype(input)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")
        if self.batch_first:
            input = input.transpose(0, 1)
        initial = self._initial(hx, input.shape[1], input)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, finals = self._run(input, initial, None)
        if self.batch_first:
            # PyTorch's CPU RNN/GRU kernels transpose their result in place (grad_fn TransposeBackward1); LSTM's don't.
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        hidden = self._stack_finals(finals)
        if not batched:
            output = output.squeeze(batch_dim)
            hidden = tuple(h.squeeze(1) for h in hidden) if isinstance(hidden, tuple) else hidden.squeeze(1)
        return output, hidden

    def _check_dtype(self, input: Tensor) -> None:
        """The input's dtype must be the weights'; PyTorch's CPU kernel also warns, once per process, that a float32
        LSTM with projections cannot use oneDNN."""
        weight = self.weight_ih_l0.dtype
        if input.dtype is not weight and not autocast_mode.STATE.dtypes:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight}). Convert input: "
                             f"input.to({weight}), or convert model: model.to({input.dtype})")
        if self.mode == "LSTM" and self.proj_size and input.dtype is dtypes.float32 and not _WARNED_PROJECTIONS:
            _WARNED_PROJECTIONS.append(True)
            warnings.warn("LSTM with projections is not supported with oneDNN. Using default implementation. "
                          "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)",
                          UserWarning, stacklevel=4)

    def _stack_finals(self, finals: list):
        from ...tensor import functions
        if self.mode == "LSTM":
            return functions.stack([h for h, _ in finals], 0), functions.stack([c for _, c in finals], 0)
        return functions.stack(finals, 0)

    def _forward_packed(self, packed, hx):
        from ...tensor import functions
        from ..utils.rnn import pad_packed_sequence
        padded, lengths = pad_packed_sequence(packed)
        if hx is not None and packed.sorted_indices is not None:
            hx = tuple(h.index_select(1, packed.sorted_indices) for h in hx) if isinstance(hx, tuple) else \
                hx.index_select(1, packed.sorted_indices)
        self._check_dtype(padded)
        if padded.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{padded.shape[-1]}")
        ordered = lengths if packed.sorted_indices is None else lengths.index_select(0, packed.sorted_indices)
        reordered = padded if packed.sorted_indices is None else padded.index_select(1, packed.sorted_indices)
        output, finals = self._run(reordered, self._initial(hx, reordered.shape[1], reordered), ordered)
        # PyTorch's packed kernels concatenate the steps' outputs (grad_fn CatBackward0).
        data = functions.cat([output[t, :size] for t, size in enumerate(packed.batch_sizes.tolist())], 0)
        output = type(packed)(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        hidden = self._stack_finals(finals)
        if packed.unsorted_indices is not None:
            hidden = tuple(h.index_select(1, packed.unsorted_indices) for h in hidden) \
                if isinstance(hidden, tuple) else hidden.index_select(1, packed.unsorted_indices)
        return output, hidden


_WARNED_PROJECTIONS: list = []


def _check_rnn_arguments(hidden_size, num_layers, dropout, proj_size) -> None:
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                      f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _batch_hidden(hx, batched: bool):
    """hx as batched states, with PyTorch's dimension checks (unbatched input takes 2-D states)."""
    if hx is None:
        return None
    want, kind = (3, "batched 3-D") if batched else (2, "unbatched 2-D")
    if isinstance(hx, tuple):
        if any(state.ndim != want for state in hx):
            raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got ({hx[0].ndim}-D, "
                               f"{hx[1].ndim}-D) tensors")
        return hx if batched else tuple(state.unsqueeze(1) for state in hx)
    if hx.ndim != want:
        raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {hx.ndim}-D tensor")
    return hx if batched else hx.unsqueeze(1)


def _check_hidden(hx: Tensor, expected: tuple, message: str) -> None:
    if tuple(hx.shape) != expected:
        raise RuntimeError(message.format(expected, list(hx.shape)))


class RNN(RNNBase):
    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[self.nonlinearity], *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ----- cells ------------------------------------------------------------------------------------------

class RNNCellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(factories.empty((num_chunks * hidden_size, input_size), device=device,
                                                   dtype=dtype))
        self.weight_hh = Parameter(factories.empty((num_chunks * hidden_size, hidden_size), device=device,
                                                   dtype=dtype))
        if bias:
            self.bias_ih = Parameter(factories.empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(factories.empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _prepare(self, input: Tensor, hx, name: str, hidden_label: str) -> tuple:
        """Batched input and states (zeros when hx is None), and whether the input was batched."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        states = hx if isinstance(hx, tuple) else (hx,)
        for index, state in enumerate(states):
            if state is not None and state.ndim not in (1, 2):
                label = hidden_label.format(index)
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {state.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        count = 2 if isinstance(self, LSTMCell) else 1
        if hx is None:
            states = tuple(factories.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
                           for _ in range(count))
        elif not batched:
            states = tuple(s.unsqueeze(0) for s in states)
        return input, states, batched

    def _project(self, input: Tensor, states: tuple) -> Tensor:
        """PyTorch's cell checks, in its order: the state count, the input's size, each state's batch and size."""
        if isinstance(self, LSTMCell) and len(states) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for index, state in enumerate(states):
            if size_at(state, 0) != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{index} batch size "
                                   f"{state.shape[0]}")
            if size_at(state, 1) != self.hidden_size:
                raise RuntimeError(f"hidden{index} has inconsistent hidden_size: got {state.shape[1]}, expected "
                                   f"{self.hidden_size}")
        return F.linear(input, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, (state,), batched = self._prepare(input, hx, "RNNCell", "hidden")
        cells = {"tanh": _tanh_cell, "relu": _relu_cell}
        if self.nonlinearity not in cells:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = cells[self.nonlinearity](self._project(input, (state,)), state, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple:
        input, states, batched = self._prepare(input, hx, "LSTMCell", "hx[{}]")
        h, c = _lstm_cell(self._project(input, states), states, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, (state,), batched = self._prepare(input, hx, "GRUCell", "hidden")
        out = _gru_cell(self._project(input, (state,)), state, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)


__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
