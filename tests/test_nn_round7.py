"""Tutorial-style nn, optim and data programs run under real torch and pjtorch (round 7): what they print, their
warnings and errors included, must be the same."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import pjtorch  # noqa: E402
from tensor_oracle import same_output  # noqa: E402


def test_parameter_dict_sorts_a_plain_dict():
    """A plain dict's keys go in sorted, an OrderedDict's (or another ParameterDict's) in their order."""
    same_output("""
        from collections import OrderedDict
        nn = torch.nn
        pd = nn.ParameterDict({'w': nn.Parameter(torch.ones(2, 2)), 'b': torch.zeros(2)})
        print(pd, list(pd.keys()))
        pd.update(OrderedDict([('z', torch.ones(1)), ('a', torch.ones(1))]))
        print(list(pd.keys()))
        print(list(nn.ParameterDict(pd).keys()))
        pd.update([('y', torch.ones(1)), ('c', torch.ones(1))])
        print(list(pd.keys()))
    """)


def test_resuming_a_scheduler_without_initial_lr():
    same_output("""
        o = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
        tr(lambda: torch.optim.lr_scheduler.StepLR(o, 2, last_epoch=3))
    """)


def test_multilabel_margin_loss_grad_fn():
    same_output("""
        x = torch.linspace(-2, 2, 12).reshape(3, 4).requires_grad_()
        target = torch.tensor([[1, 2, -1, 0], [0, -1, 1, 1], [3, 2, 1, 0]])
        for reduction in ('mean', 'sum', 'none'):
            loss = torch.nn.functional.multilabel_margin_loss(x, target, reduction=reduction)
            print(loss)
            loss.sum().backward()
            print(x.grad)
            x.grad = None
        print(torch.nn.MultiLabelMarginLoss()(x[0], torch.tensor([3, 0, -1, 1])))
    """)


def test_conv_argument_errors_and_transposed_output_size():
    """F.conv* reject a zero stride, negative padding and zero dilation with PyTorch's words; ConvTranspose's
    output_size may carry the leading dims and must lie within the stride's reach."""
    same_output("""
        nn, F = torch.nn, torch.nn.functional
        x = torch.ones(2, 3, 5, 6)
        tr(lambda: F.conv2d(x, torch.ones(4, 3, 3, 3), stride=0))
        tr(lambda: F.conv2d(x, torch.ones(4, 3, 3, 3), padding=-1))
        tr(lambda: F.conv1d(x[0], torch.ones(4, 5, 3), dilation=0))
        ct = nn.ConvTranspose2d(3, 6, 3, stride=2, groups=3)
        print(ct(x, output_size=[12, 14]).shape, ct(x, output_size=(2, 6, 11, 13)).shape)
        print(ct(x[0], output_size=[6, 12, 14]).shape)
        tr(lambda: ct(x, output_size=[20, 20]))
        tr(lambda: ct(x, output_size=[20]))
        tr(lambda: ct(x[0], output_size=[1, 2, 20, 20]))
        tr(lambda: nn.ConvTranspose1d(3, 2, 3, stride=3)(x[0, :, 0], output_size=[3]))
    """)


def test_pooling_input_errors():
    """Each pooling function words a wrong rank, a zero stride and an empty output as PyTorch's kernel does."""
    same_output("""
        F = torch.nn.functional
        for name in ['max_pool1d', 'max_pool2d', 'max_pool3d', 'avg_pool1d', 'avg_pool2d', 'avg_pool3d',
                     'adaptive_avg_pool1d', 'adaptive_avg_pool2d', 'adaptive_avg_pool3d', 'adaptive_max_pool1d']:
            for shape in [(3,), (2, 3, 4, 5, 6, 7)]:
                tr(lambda: getattr(F, name)(torch.ones(shape), 2))
        x = torch.ones(2, 3, 5, 6)
        tr(lambda: torch.nn.MaxPool2d(7)(x))
        tr(lambda: F.max_pool2d(x[0], (2, 7)))
        tr(lambda: F.avg_pool2d(x, 7, ceil_mode=True))
        tr(lambda: F.max_pool1d(x[0], 7))
        tr(lambda: F.avg_pool1d(x[0], 7))
        tr(lambda: F.max_pool3d(x, 7))
        tr(lambda: F.avg_pool3d(x, (1, 7, 7)))
        tr(lambda: F.max_pool2d(x, 3, stride=0))
        tr(lambda: F.avg_pool2d(x, 3, stride=(1, 0)))
        tr(lambda: F.max_pool1d(x[0], 3, stride=0))
        tr(lambda: F.max_pool1d(x[0], 3, padding=2))
        tr(lambda: F.max_pool1d(x[0], 5, padding=2, dilation=0))
    """)


def test_norm_shape_errors():
    """batch_norm names the statistic or affine tensor whose length is not the channel count; layer_norm checks its
    weight and bias against normalized_shape; GroupNorm says which counts do not divide."""
    same_output("""
        F = torch.nn.functional
        x = torch.ones(2, 3, 4)
        tr(lambda: F.batch_norm(x, torch.zeros(4), torch.ones(4), training=True))
        tr(lambda: F.batch_norm(x, torch.zeros(3), torch.ones(4), training=True))
        tr(lambda: F.batch_norm(x, torch.zeros(3), torch.ones(3), weight=torch.ones(4)))
        tr(lambda: F.batch_norm(x, None, None, bias=torch.ones(4), training=True))
        tr(lambda: torch.nn.BatchNorm1d(4)(x))
        tr(lambda: torch.nn.BatchNorm2d(4).eval()(torch.ones(2, 3, 4, 4)))
        tr(lambda: F.layer_norm(x, (4,), weight=torch.ones(3)))
        tr(lambda: F.layer_norm(x, (4,), bias=torch.ones(4, 1)))
        tr(lambda: torch.nn.GroupNorm(2, 3))
    """)


def test_feature_dropout_ranks():
    """dropout1d rejects other ranks; dropout2d and dropout3d warn (training or not) and drop per PyTorch's reading
    of the input: which dims the mask is constant along is the same."""
    same_output("""
        F = torch.nn.functional
        def constant_along(y):
            return [bool((y == y.narrow(d, 0, 1)).all()) for d in range(y.ndim)]
        for f in [F.dropout1d, F.dropout2d, F.dropout3d]:
            for shape in [(40, 30), (20, 30, 8), (10, 20, 4, 4)]:
                tr(lambda: constant_along(f(torch.ones(shape), 0.5)))
                tr(lambda: f(torch.ones(shape), 0.5, training=False).shape)
    """)


def test_unpad_sequence_transposes_its_input_in_place():
    same_output("""
        rnn = torch.nn.utils.rnn
        seqs = [torch.arange(4.), torch.arange(2.), torch.arange(3.)]
        padded = rnn.pad_sequence(seqs)
        print([t.tolist() for t in rnn.unpad_sequence(padded, torch.tensor([4, 2, 3]))], padded.shape)
        print([t.tolist() for t in rnn.unpad_sequence(padded, torch.tensor([4, 2, 3]), batch_first=True)])
    """)


def test_rrelu_in_training_draws_slopes():
    """Training RReLU gives each negative element a slope within [lower, upper] and keeps the positive ones."""
    same_output("""
        nn = torch.nn
        x = torch.linspace(-3, 3, 13).requires_grad_()
        y = nn.RReLU(0.1, 0.3)(x)
        print(y.grad_fn.name() if hasattr(y.grad_fn, 'name') else type(y.grad_fn).__name__)
        slopes = (y / x)[:6].detach()
        print(bool(((slopes >= 0.1) & (slopes <= 0.3)).all()), y[6:])
        y.sum().backward()
        print(bool(torch.allclose(x.grad[:6], slopes)), x.grad[7:])
        t = x.detach().clone()
        print(torch.nn.functional.rrelu(t, training=True, inplace=True) is t, t[6:])
        print(nn.RReLU().eval()(x.detach()))
    """)


def test_deprecated_init_names_warn():
    same_output("""
        I = torch.nn.init
        print(I.constant(torch.empty(2), 0.5), I.eye(torch.empty(2, 2)), I.dirac(torch.empty(1, 1, 3)))
        print(I.uniform(torch.empty(3), 1.0, 1.0), I.normal(torch.empty(2), 2.0, 0.0))
        for name in ('xavier_uniform', 'xavier_normal', 'kaiming_uniform', 'kaiming_normal', 'orthogonal'):
            print(getattr(I, name).__name__, getattr(I, name)(torch.empty(3, 4)).shape)
        print(I.sparse(torch.empty(4, 3), 0.5).shape)
    """)


def test_layer_dtype_mismatch_errors():
    """A double input to a float layer (or the reverse) fails with the message of the PyTorch kernel it reaches:
    addmm's for a biased Linear, the conv and norm kernels' own, the RNN's ValueError, bilinear's list."""
    same_output("""
        nn, F = torch.nn, torch.nn.functional
        for shape in [(3,), (2, 2, 3)]:
            for bias in [True, False]:
                for wd, xd in [(torch.float32, torch.float64), (torch.float64, torch.float32),
                               (torch.float32, torch.int64), (torch.float32, torch.bfloat16)]:
                    layer = nn.Linear(3, 2, bias=bias).to(wd)
                    tr(lambda: layer(torch.ones(shape, dtype=xd)))
        tr(lambda: nn.Linear(3, 2)(torch.ones(2, 4, dtype=torch.float64)))
        tr(lambda: F.linear(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, dtype=torch.float64)))
        tr(lambda: F.linear(torch.ones(2, 2, 3), torch.ones(2, 3), torch.ones(3)))
        tr(lambda: F.linear(torch.ones(3), torch.ones(2, 3), torch.ones(3)))
        tr(lambda: F.linear(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 2, 2)))
        for bias in [True, False]:
            for dt in [torch.float64, torch.int64, torch.float16]:
                for conv in [nn.Conv1d(1, 1, 2, bias=bias), nn.Conv2d(1, 1, 2, bias=bias),
                             nn.ConvTranspose2d(1, 1, 2, bias=bias)]:
                    tr(lambda: conv(torch.ones((1, 1) + (3,) * (conv.weight.ndim - 2), dtype=dt)))
        tr(lambda: nn.Conv2d(2, 1, 2)(torch.ones(1, 1, 3, 3, dtype=torch.float64)))
        tr(lambda: nn.LSTM(3, 2)(torch.ones(1, 1, 3, dtype=torch.float64)))
        tr(lambda: nn.GRU(3, 2, batch_first=True).double()(torch.ones(1, 3)))
        tr(lambda: nn.Bilinear(3, 3, 2)(torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3)))
        tr(lambda: F.bilinear(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3, 3), torch.ones(2).half()))
        for dt in [torch.float64, torch.bfloat16, torch.float32]:
            for m in [nn.BatchNorm1d(3), nn.BatchNorm1d(3).eval(), nn.GroupNorm(1, 3),
                      nn.InstanceNorm1d(3, affine=True)]:
                tr(lambda: m(torch.linspace(-1, 1, 12, dtype=dt).reshape(2, 3, 2)).dtype)
            tr(lambda: nn.LayerNorm(3)(torch.ones(2, 3, dtype=dt)).dtype)
        tr(lambda: F.batch_norm(torch.ones(2, 3), torch.zeros(3, dtype=torch.float64), torch.ones(3), training=True))
        tr(lambda: F.layer_norm(torch.ones(2, 3), (3,), torch.ones(3, dtype=torch.float16)))
        tr(lambda: F.group_norm(torch.ones(2, 3, dtype=torch.float16), 1, torch.ones(3, dtype=torch.float64)))
    """)


@pytest.mark.parametrize("options", [dict(size=(7, 4)), dict(scale_factor=2.5), dict(scale_factor=(0.5, 1.5)),
                                     dict(size=(7, 4), align_corners=True), dict(size=(1, 1))])
def test_bicubic_upsampling(options):
    """Keys' cubic kernel over four edge-clamped taps, PyTorch's grad_fn, and +0.0 for inputs no output reads."""
    from nn_oracle import check_module
    check_module(lambda nn: nn.Upsample(mode="bicubic", **options),
                 [torch.linspace(-1, 1, 2 * 5 * 6).reshape(1, 2, 5, 6)], rtol=1e-4, atol=1e-5)


def test_interpolate_rank_errors():
    same_output("""
        F = torch.nn.functional
        for shape in [(2,), (1, 1, 1, 1, 1, 1), (1, 2, 3)]:
            for mode in ['nearest', 'area', 'linear', 'foo', 'bicubic', 'nearest-exact']:
                tr(lambda: F.interpolate(torch.ones(shape), size=2, mode=mode).shape)
        x = torch.zeros(1, 1, 4, 4).requires_grad_()
        F.interpolate(x, size=(1, 1), mode='bicubic').sum().mul(-1).backward()
        print(x.grad)
    """)


def test_optimizer_takes_named_parameters():
    """(name, param) pairs become the group's 'param_names', kept by state_dict and load_state_dict."""
    same_output("""
        nn = torch.nn
        m = nn.Linear(2, 2)
        o = torch.optim.AdamW(m.named_parameters(), lr=0.1)
        print(o.param_groups[0]['param_names'], o.state_dict()['param_groups'])
        o.add_param_group({'params': [('extra', nn.Parameter(torch.ones(1)))], 'lr': 0.5})
        tr(lambda: o.add_param_group({'params': [nn.Parameter(torch.ones(1))]}))
        tr(lambda: torch.optim.SGD([('a', nn.Parameter(torch.ones(1))), nn.Parameter(torch.ones(1))], lr=0.1))
        plain = torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1)
        tr(lambda: plain.add_param_group({'params': [('b', nn.Parameter(torch.ones(1)))]}))
        m(torch.ones(1, 2)).sum().backward()
        o.step()
        o2 = torch.optim.AdamW(list(m.parameters()), lr=0.3)
        o2.add_param_group({'params': [nn.Parameter(torch.ones(1))]})
        o2.load_state_dict(o.state_dict())
        print(o2.state_dict()['param_groups'])
    """)


def test_lbfgs_keeps_the_two_loop_coefficients():
    same_output("""
        p = torch.nn.Parameter(torch.tensor([-1.0, 1.0]))
        opt = torch.optim.LBFGS([p], history_size=3, max_iter=4)
        def closure():
            opt.zero_grad()
            loss = (1 - p[0]) ** 2 + 10 * (p[1] - p[0] ** 2) ** 2
            loss.backward()
            return loss
        opt.step(closure)
        state = opt.state_dict()['state'][0]
        print(list(state), len(state['al']), [a is None for a in state['al']])
    """)


def test_class_target_and_binary_target_errors():
    """nll_loss/cross_entropy check batch sizes, the target's rank and shape, its dtype and the weight's length and
    dtype in PyTorch's order; an unbatched input takes a 1-element target vector; BCE needs the input's dtype."""
    same_output("""
        F = torch.nn.functional
        x = torch.linspace(-1, 1, 12).reshape(4, 3)
        x3 = x.reshape(2, 3, 2)
        for f in [F.cross_entropy, F.nll_loss]:
            for args in [(x, torch.ones(4, 1, dtype=torch.long)), (x[0], torch.tensor([1, 2])),
                         (x[0], torch.tensor([[1]])), (x, torch.ones(4, 2)), (x, torch.tensor([0., 1., 2., 1.])),
                         (x3, torch.ones(2, 2, 2, dtype=torch.long)),
                         (x3, torch.ones(2, dtype=torch.long)), (x, torch.tensor(1))]:
                tr(lambda: f(*args))
            print(f(x[0], torch.tensor([1])), f(x[0], torch.tensor([2]), reduction='none').shape)
            for w in [torch.ones(4), torch.ones(3, 1), torch.ones(3, dtype=torch.float64)]:
                tr(lambda: f(x, torch.tensor([0, 1, 2, 1]), weight=w))
                tr(lambda: f(x3, torch.ones(2, 2, dtype=torch.long), weight=w[:2]))
        tr(lambda: F.binary_cross_entropy(torch.sigmoid(x), torch.ones(4, 3, dtype=torch.long)))
        tr(lambda: F.binary_cross_entropy(torch.sigmoid(x), torch.ones(4, 3, dtype=torch.float64)))
        tr(lambda: F.binary_cross_entropy_with_logits(x, torch.ones(4, 3, dtype=torch.long)))
        tr(lambda: F.binary_cross_entropy_with_logits(x, torch.ones(4, 3, dtype=torch.float64)))
    """)


def test_integer_inputs_to_pooling_norms_and_mse():
    """Integer average pooling stays integer (integer division); batch_norm and mse_loss refuse integer tensors."""
    same_output("""
        nn, F = torch.nn, torch.nn.functional
        x = torch.arange(32).reshape(1, 2, 4, 4)
        print(nn.AvgPool2d(2)(x), F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False))
        print(nn.MaxPool2d(2)(x))
        tr(lambda: nn.BatchNorm1d(2)(torch.ones(2, 2, dtype=torch.long)))
        tr(lambda: F.mse_loss(torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long)))
        print(F.mse_loss(torch.ones(2, dtype=torch.long), torch.zeros(2)))
        tr(lambda: nn.Dropout()(torch.ones(2, dtype=torch.long)))
        print(nn.Dropout().eval()(torch.ones(2, dtype=torch.long)), F.dropout(torch.ones(2, dtype=torch.int32), 0.0))
    """)


def test_warn_once_messages_of_cpu_kernels(tmp_path):
    """PyTorch's kernels warn once per process for an uneven 'same' padding and a float32 LSTM with projections;
    a fresh process under each library shows the same warnings."""
    import subprocess
    import sys
    script = tmp_path / "program.py"
    script.write_text("import warnings\nwarnings.simplefilter('always')\nimport torch\n"
                      "x = torch.ones(1, 1, 5, 5)\n"
                      "for _ in range(2):\n"
                      "    torch.nn.functional.conv2d(x, torch.ones(1, 1, 2, 2), padding='same')\n"
                      "    torch.nn.LSTM(3, 4, proj_size=2)(torch.ones(2, 3))\n"
                      "torch.nn.functional.conv1d(x[0], torch.ones(1, 5, 3), padding='same')\n")

    def warnings_of(*command) -> list:
        stderr = subprocess.run([sys.executable, *command, str(script)], capture_output=True, text=True,
                                cwd=pjtorch.__path__[0] + "/..").stderr
        return [line.split("Warning: ", 1)[1] for line in stderr.splitlines() if "Warning: " in line]

    assert warnings_of("-m", "pjtorch.run") == warnings_of()
