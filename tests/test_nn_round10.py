"""nn, optim and data against real torch (round 10): the dtypes each loss accepts and its errors, im2col/col2im's
checks, CELU's alpha, containers' arithmetic and insert, ParameterDict's dict methods, always-called forward hooks
and the global registration hooks."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
from tensor_oracle import same, same_output  # noqa: E402

DTYPES = ["int64", "int32", "bool", "float32", "complex64"]


def _operand(m, name: str):
    return (m.arange(4) % 3 - 1).to(getattr(m, name))


LOSSES = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits", "kl_div",
          "soft_margin_loss", "hinge_embedding_loss"]


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_loss_operand_dtypes(loss, reduction):
    """Integral, bool and complex operands: PyTorch's result dtype or its exact error, for every pairing."""
    for a in DTYPES:
        for b in DTYPES:
            same(lambda m: getattr(m.nn.functional, loss)(_operand(m, a), _operand(m, b), reduction=reduction))


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_smooth_l1_with_beta_zero_is_l1(reduction):
    for a in DTYPES:
        for b in DTYPES:
            same(lambda m: m.nn.functional.smooth_l1_loss(_operand(m, a), _operand(m, b), reduction=reduction,
                                                          beta=0.0))


def test_hinge_embedding_loss_truncates_margin_for_integer_input():
    same(lambda m: m.nn.functional.hinge_embedding_loss(m.tensor([0, 1, 2, -3]), m.tensor([-1, -1, 1, -1]),
                                                        margin=1.5, reduction="none"))
    same(lambda m: m.nn.functional.hinge_embedding_loss(m.tensor([0, 1, 2, -3]), m.tensor([-1, -1, 1, -1]),
                                                        margin=2.5, reduction="sum"))


UNFOLD_CASES = [((1, 2, 4, 5), dict(kernel_size=(0, 2))), ((1, 2, 4, 5), dict(kernel_size=2, dilation=(1, 0))),
                ((1, 2, 4, 5), dict(kernel_size=2, padding=-1)), ((1, 2, 4, 5), dict(kernel_size=2, stride=0)),
                ((1, 2, 4, 5), dict(kernel_size=5)), ((1, 2, 4, 5), dict(kernel_size=2, dilation=4)),
                ((1, 2, 4, 5), dict(kernel_size=5, padding=1)), ((0, 2, 4, 5), dict(kernel_size=2)),
                ((1, 0, 4, 5), dict(kernel_size=2)), ((1, 1, 4, 0), dict(kernel_size=2)),
                ((0, 4, 4), dict(kernel_size=2)), ((2, 4, 5), dict(kernel_size=5)), ((5,), dict(kernel_size=1)),
                ((2, 3), dict(kernel_size=1)), ((2, 0), dict(kernel_size=1)), ((1, 1, 1, 4, 5), dict(kernel_size=2)),
                ((5,), dict(kernel_size=0, dilation=0, padding=-1, stride=0))]


@pytest.mark.parametrize("shape,kw", UNFOLD_CASES)
def test_unfold_checks(shape, kw):
    same(lambda m: m.nn.functional.unfold(m.arange(float(m.Size(shape).numel())).reshape(shape), **kw))


FOLD_CASES = [((1, 4, 4), (3, 3), dict(kernel_size=(0, 2))), ((1, 4, 4), (3, 3), dict(kernel_size=2, stride=0)),
              ((1, 4, 4), (3, 3), dict(kernel_size=2, padding=-1)), ((1, 4, 4), (3, 3), dict(kernel_size=2, dilation=0)),
              ((5,), 3, dict(kernel_size=1, dilation=0, padding=-1)), ((5,), 3, dict(kernel_size=1, padding=-1)),
              ((1, 5, 4, 4), 3, dict(kernel_size=1)), ((0, 4), 3, dict(kernel_size=2)),
              ((1, 4, 0), 3, dict(kernel_size=2)), ((0, 4, 4), 3, dict(kernel_size=2)),
              ((1, 0, 4), 3, dict(kernel_size=2)), ((2, 5, 4), 3, dict(kernel_size=2)),
              ((1, 4, 4), (1, 1), dict(kernel_size=2))]


@pytest.mark.parametrize("shape,out,kw", FOLD_CASES)
def test_fold_checks(shape, out, kw):
    same(lambda m: m.nn.functional.fold(m.arange(float(m.Size(shape).numel())).reshape(shape), out, **kw))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int64", "float16", "float64", "complex64"])
def test_unfold_and_fold_dtypes(dtype):
    """im2col/col2im take bool, floating and complex tensors; overlapping bools fold to their logical or."""
    same(lambda m: m.nn.functional.unfold((m.arange(18) % 3).reshape(1, 2, 3, 3).to(getattr(m, dtype)), 2))
    same(lambda m: m.nn.functional.fold((m.arange(16) % 3).reshape(1, 4, 4).to(getattr(m, dtype)), 3, 2))


def test_celu_alpha_zero():
    same(lambda m: m.nn.functional.celu(m.ones(3), 0.0))
    same(lambda m: m.nn.CELU(0.0)(m.ones(3)))
    same(lambda m: m.nn.functional.celu_(m.ones(3), 0.0))
    same(lambda m: m.nn.functional.celu(-m.ones(3), 0.5))


def test_sequential_arithmetic_and_insert():
    same_output("""
        nn = torch.nn
        s = nn.Sequential(nn.ReLU(), nn.Tanh())
        for factor in [0, -1, 1.5, 'a']:
            try:
                s * factor
            except (TypeError, ValueError) as e:  # the class as pjtorch names it outside pjtorch.run
                print(type(e).__name__, str(e).replace('pjtorch.', 'torch.'))
        print(s * 2, 3 * s)
        t = s * 2
        print(t[0] is t[2], len(t))
        s *= 2
        print(s)
        s += nn.Sequential(nn.ELU())
        print(s, len(s))
        tr(lambda: s.__iadd__([nn.ReLU()]))
        tr(lambda: s.insert(10, nn.ReLU()))
        tr(lambda: s.insert(-6, nn.ReLU()))
        tr(lambda: s.insert(-5, nn.SELU()))
        tr(lambda: s.insert(6, nn.SiLU()))
        print(s)
    """)


def test_module_list_insert_and_module_dict_update():
    same_output("""
        nn = torch.nn
        ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
        ml.insert(1, nn.ELU())
        print(ml)
        tr(lambda: ml.insert(-1, nn.SELU()))
        print(ml)
        ml.insert(10, nn.SiLU())
        print(ml, len(ml))
        md = nn.ModuleDict({'b': nn.ReLU()})
        md.update(nn.ModuleDict({'a': nn.Tanh()}))
        md.update([('c', nn.ELU()), ['d', nn.SELU()]])
        print(md)
        tr(lambda: md.update(3))
        tr(lambda: md.update([nn.ReLU()]))
        tr(lambda: md.update([('x', nn.ReLU(), 1)]))
        tr(lambda: nn.ModuleDict([('x',)]))
        print(list(md))
    """)


def test_parameter_dict_dict_methods():
    same_output("""
        P = torch.nn.ParameterDict
        d = P({'b': torch.ones(1), 'a': torch.zeros(2)})
        print(d.setdefault('c', torch.ones(3)), d.setdefault('a'))
        print(list(reversed(d)), d.popitem()[0], list(d))
        e = d | P({'z': torch.ones(1)})
        print(e, type(e).__name__, list(d))
        d |= {'y': torch.zeros(1)}
        print(list(d), d.copy() is d, list(d.copy()))
        print(d.fromkeys(['p', 'q'], torch.ones(2)))
        d.clear()
        print(d, len(d))
    """)


def test_always_called_forward_hooks():
    same_output("""
        import warnings
        nn = torch.nn
        register_module_forward_hook = torch.nn.modules.module.register_module_forward_hook

        class Bad(nn.Module):
            def forward(self, x, **kwargs):
                raise ValueError('boom')

        def failing(module, args, output):
            raise KeyError('hook')

        b = Bad()
        b.register_forward_hook(lambda m, a, o: print('plain', o))
        b.register_forward_hook(failing, always_call=True)
        h = b.register_forward_hook(lambda m, a, k, o: print('kwargs', k, o), always_call=True, with_kwargs=True)
        g = register_module_forward_hook(lambda m, a, o: print('global', o), always_call=True)
        tr(lambda: b(1, y=2))
        h.remove()
        g.remove()
        tr(lambda: b(1))
        ok = nn.Identity()
        ok.register_forward_hook(lambda m, a, o: print('ran once', o), always_call=True)
        tr(lambda: ok(3))
    """)


def test_global_registration_hooks():
    same_output("""
        nn = torch.nn
        M = torch.nn.modules.module
        hp = M.register_module_parameter_registration_hook(lambda m, n, p: print('param', type(m).__name__, n))
        hb = M.register_module_buffer_registration_hook(lambda m, n, b: None if b is None else b + 1)
        hm = M.register_module_module_registration_hook(lambda m, n, s: print('module', n, type(s).__name__))
        bn = nn.BatchNorm1d(2)
        print(bn.running_mean, bn.running_var)
        s = nn.Sequential(nn.ReLU())
        s.extra = nn.Tanh()
        s.w = nn.Parameter(torch.zeros(1))
        for h in (hp, hb, hm):
            h.remove()
        nn.Linear(1, 1)
        print(nn.BatchNorm1d(1).running_var)
    """)


def test_add_param_group_type_error():
    same(lambda m: m.optim.SGD([m.nn.Parameter(m.ones(1))], lr=0.1).add_param_group([m.ones(1)]))


@pytest.mark.parametrize("make", ["Linear(0, 2)", "Conv2d(1, 1, 0)", "Conv1d(0, 2, 3)", "ConvTranspose2d(2, 0, 1)",
                                  "Linear(0, 3, bias=False)"])
def test_layers_without_inputs_still_draw_their_bias(make):
    """PyTorch draws the bias from U(0, 0) when fan_in is 0, so the generator moves on as it does."""
    def case(m):
        m.manual_seed(0)
        with __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            layer = eval("m.nn." + make)
        return m.rand(3), layer.bias
    same(case)


def test_bilinear_without_first_inputs():
    same(lambda m: m.nn.Bilinear(0, 2, 3))


def test_conv_transpose_output_size_error_prints_it_as_given():
    for size in ["(10, 10)", "[10, 10]", "[1, 3, 10, 10]", "torch.Size([10, 10])"]:
        same(lambda m: m.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)(
            m.ones(1, 2, 4, 4), output_size=eval(size, {"torch": m})))


def test_multihead_attention_separate_weight_shapes():
    same(lambda m: m.nn.MultiheadAttention(4, 2, kdim=3)(m.ones(2, 1, 4), m.ones(2, 1, 4), m.ones(2, 1, 4)))
    same(lambda m: m.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)(m.ones(2, 1, 4), m.ones(2, 1, 3), m.ones(2, 1, 4)))


def test_embedding_bag_first_offset_message():
    for index, offset in [("int64", "int64"), ("int64", "int32"), ("int32", "int32")]:
        same(lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2, 3], dtype=getattr(m, index)), m.ones(5, 2),
                                                     m.tensor([2], dtype=getattr(m, offset))))


def test_parameter_of_integers_cannot_require_grad():
    same(lambda m: m.nn.Parameter(m.zeros(2, dtype=m.long)))
    same(lambda m: m.nn.Parameter(m.zeros(2, dtype=m.bool)))
    same(lambda m: m.nn.Parameter(m.zeros(2, dtype=m.long), requires_grad=False))
    same(lambda m: m.nn.Parameter(m.zeros(2, dtype=m.complex64)))


def test_random_sampler_replacement_must_be_bool():
    same(lambda m: m.utils.data.RandomSampler(range(3), replacement=1))


RNN_UTIL_CASES = [
    "pack_sequence([torch.ones(0, 2)])",
    "pack_padded_sequence(torch.ones(3, 2, 1), torch.tensor([3, 2, 1]))",
    "pack_padded_sequence(torch.ones(3, 2, 1), [3, 0])",
    "pack_padded_sequence(torch.ones(2, 0, 1), [], enforce_sorted=False)",
    "pad_sequence([])",
    "pad_sequence([], padding_side='x')",
    "pad_sequence([torch.ones(2)], padding_side='middle')",
    "pad_sequence(3)",
    "pack_sequence([torch.ones(3, 2), torch.ones(1, 2)]).double().data",
    "pack_sequence([torch.ones(3, 2), torch.ones(1, 2)]).long().data",
    "pack_sequence([torch.ones(3, 2), torch.ones(1, 2)]).half().data",
    "pack_sequence([torch.ones(3, 2), torch.ones(1, 2)]).cpu().batch_sizes",
]


@pytest.mark.parametrize("case", RNN_UTIL_CASES)
def test_rnn_utils_checks_and_casts(case):
    same(lambda m: eval(case, {"torch": m, **vars(m.nn.utils.rnn)}))


CELL_CASES = [
    ("RNNCell", "torch.ones(4, 2), torch.ones(4, 2)"), ("RNNCell", "torch.ones(2), torch.ones(1, 3)"),
    ("RNNCell", "torch.ones(4, 2), torch.ones(4)"), ("RNNCell", "torch.ones(4, 3)"),
    ("GRUCell", "torch.ones(4, 2), torch.ones(3, 3)"), ("GRUCell", "torch.ones(2), torch.ones(3)"),
    ("LSTMCell", "torch.ones(4, 2), (torch.ones(4, 3), torch.ones(3, 3))"),
    ("LSTMCell", "torch.ones(4, 2), (torch.ones(4, 3),)"),
    ("LSTMCell", "torch.ones(4, 2), (torch.ones(4, 2), torch.ones(4, 3))"),
    ("LSTMCell", "torch.ones(4, 2), (torch.ones(4, 3), torch.ones(4, 3))"),
]


@pytest.mark.parametrize("cell,args", CELL_CASES)
def test_rnn_cell_state_checks(cell, args):
    def case(m):
        m.manual_seed(0)
        return getattr(m.nn, cell)(2, 3)(*eval(f"({args},)", {"torch": m}))
    same(case)


def test_multilabel_margin_loss_counts_repeated_targets():
    for reduction in ["none", "mean", "sum"]:
        same(lambda m: m.nn.functional.multilabel_margin_loss(
            m.arange(12.).reshape(3, 4).sin(), m.tensor([[2, 2, -1, 0], [1, 1, 1, 3], [0, -1, 0, 0]]),
            reduction=reduction))


def test_multilabel_margin_loss_distinct_targets():
    for reduction in ["none", "mean", "sum"]:
        same(lambda m: m.nn.functional.multilabel_margin_loss(
            m.arange(12.).reshape(3, 4).sin(), m.tensor([[2, 0, -1, 1], [1, 3, 0, 2], [0, -1, 0, 0]]),
            reduction=reduction))


def test_dropout_of_negatives_gives_negative_zero():
    same_output("""
        torch.manual_seed(1)
        print(torch.nn.functional.dropout(-torch.arange(1., 9.), 0.5))
        print(torch.nn.Dropout(0.3)(-torch.ones(6)))
    """)


def test_recurrent_output_grad_fn_names():
    """PyTorch's CPU LSTM runs float32 layers through oneDNN (MkldnnRnnLayerBackward0); packed outputs are the steps
    concatenated (CatBackward0)."""
    same_output("""
        nn = torch.nn
        pack = torch.nn.utils.rnn.pack_sequence
        torch.manual_seed(0)
        for cls in [nn.LSTM, nn.GRU, nn.RNN]:
            for kw in [dict(), dict(num_layers=2), dict(bidirectional=True), dict(batch_first=True),
                       dict(proj_size=1) if cls is nn.LSTM else dict(bias=False), dict(dtype=torch.float64)]:
                m = cls(3, 2, **kw)
                x = torch.randn(4, 2, 3, dtype=kw.get('dtype', torch.float32))
                out, _ = m(x)
                packed, _ = m(pack([torch.randn(3, 3, dtype=x.dtype), torch.randn(2, 3, dtype=x.dtype)],
                                   enforce_sorted=False))
                print(cls.__name__, kw, out.grad_fn.name(), packed.data.grad_fn.name(), m(x[:, 0])[0].grad_fn.name())
                tr(lambda: m(torch.randn(4, 0, 3, dtype=x.dtype))[0].grad_fn.name())
        m = nn.LSTM(3, 2)
        out, (h, c) = m(torch.randn(5, 1, 3))
        print(out)
        out.sum().backward()
        print(m.weight_hh_l0.grad.shape)
    """)


@pytest.mark.parametrize("norm", [float("inf"), -float("inf"), 2.0])
@pytest.mark.parametrize("call", ["lp_pool2d(x, p, 2)", "lp_pool2d(x, p, (2, 3), stride=1, ceil_mode=True)",
                                  "lp_pool1d(x[0], p, 3, 2)", "lp_pool3d(x, p, 2)"])
def test_lp_pool_infinite_norm_is_max_pooling(norm, call):
    def case(m):
        x = m.arange(60.).reshape(1, 2, 5, 6).sin().requires_grad_()
        y = eval(call, {"x": x, "p": norm, **vars(m.nn.functional)})
        y.sum().backward()
        return y, x.grad
    same(case)


PAD_CASES = [
    ("(1, 2, 4, 4)", "(1, 1)", dict(mode="foo", value=1.0)),
    ("(1, 2, 4, 4)", "(1,) * 8", dict(mode="reflect", value=1.0)),
    ("(1, 2, 4, 4)", "(1, 1)", dict(mode="reflect", value=1.0)),
    ("(1, 2, 4, 4)", "(1, 1)", dict(mode="reflect", value=0.0)),
    ("(1, 2, 4, 4)", "(1.5,)", {}), ("(1, 2, 4, 4)", "(1, 2.0)", {}), ("(1, 2, 4, 4)", "(True, 1)", {}),
    ("(1, 2, 4, 4)", "torch.tensor([1, 1])", {}), ("(1, 2, 4, 4)", "(torch.tensor(1), 2)", {}),
    ("(1, 2, 4, 4)", "(torch.tensor(1.), 2)", {}),
    ("(1, 2, 4, 4)", "(-2, -2)", {}), ("(1, 2, 4, 4)", "(-3, -2)", {}), ("(1, 2, 4, 4)", "(-5, 2)", {}),
    ("(1, 2, 4, 4)", "(0, 0, -3, -3)", {}),
    ("(1, 0, 3)", "(1, 1)", dict(mode="reflect")), ("(0, 2, 3)", "(1, 1)", dict(mode="replicate")),
    ("(1, 2, 0, 3)", "(1, 1, 1, 1)", dict(mode="replicate")), ("(2, 3, 0)", "(1, 1, 1, 1)", dict(mode="reflect")),
    ("(1, 1, 2, 0, 3)", "(1,) * 6", dict(mode="reflect")), ("(1, 0, 3)", "(1, 1)", dict(mode="circular")),
]


@pytest.mark.parametrize("shape,pads,kw", PAD_CASES)
def test_pad_argument_checks(shape, pads, kw):
    same(lambda m: m.nn.functional.pad(m.ones(eval(shape)), eval(pads, {"torch": m}), **kw))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_pad_bool_by_mode(mode):
    same(lambda m: m.nn.functional.pad(m.ones(1, 2, 3, dtype=m.bool), (1, 1), mode=mode))
    same(lambda m: m.nn.functional.pad(m.ones(1, 2, 3, 3, dtype=m.bool), (1, 1, 1, 1), mode=mode))


INTERPOLATE_CASES = [((1, 2, 4), dict(size=0)), ((1, 2, 4, 4, 4), dict(size=(0, 2, 2))),
                     ((1, 2, 4, 4), dict(size=(2, 0), mode="bilinear")), ((1, 2, 4, 4), dict(scale_factor=0.1)),
                     ((1, 2, 4, 4), dict(size=0, mode="area")), ((1, 2, 4, 4), dict(size=0, mode="bicubic")),
                     ((1, 2, 0, 4), dict(size=2)), ((1, 2, 4), dict(size=0, mode="nearest-exact")),
                     ((1, 2, 4, 4), dict(scale_factor=-1)), ((1, 2, 4, 4, 4), dict(size=0, mode="trilinear"))]


@pytest.mark.parametrize("shape,kw", INTERPOLATE_CASES)
def test_interpolate_sizes_must_be_positive(shape, kw):
    same(lambda m: m.nn.functional.interpolate(m.ones(shape), **kw))
