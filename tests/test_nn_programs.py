"""torch.nn and training programs in the style of pytorch.org's tutorials, run once with real torch and once with
pjtorch: what they print (grad_fn names, collated batches, scheduler warnings, errors) must be the same."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
from tensor_oracle import same_output  # noqa: E402


def test_sequential_lr_switch_does_not_warn():
    """SequentialLR restarts the next scheduler without step(epoch)'s deprecation warning."""
    same_output("""
        opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
        s1 = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
        s2 = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        seq = torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[s1, s2], milestones=[3])
        for e in range(6):
            opt.step()
            seq.step()
            print(seq.get_last_lr(), s2.last_epoch, s2._step_count)
    """)


def test_packed_sequence_grad_fns():
    """pad_sequence writes into a filled tensor (CopySlices), packing is one op, unsorting comes last."""
    same_output("""
        rnn_utils = torch.nn.utils.rnn
        pad_sequence, pack_padded_sequence = rnn_utils.pad_sequence, rnn_utils.pack_padded_sequence
        pad_packed_sequence, pack_sequence = rnn_utils.pad_packed_sequence, rnn_utils.pack_sequence
        seqs = [torch.arange(4.).requires_grad_(), torch.arange(2.), torch.arange(3.)]
        for bf in (True, False):
            for side in ('left', 'right'):
                print(pad_sequence(seqs, batch_first=bf, padding_side=side, padding_value=-1))
            padded = pad_sequence(seqs, batch_first=bf)
            p = pack_padded_sequence(padded, torch.tensor([4, 2, 3]), batch_first=bf, enforce_sorted=False)
            print(p)
            print(pad_packed_sequence(p, batch_first=bf, total_length=5))
        packed = pack_sequence(seqs, enforce_sorted=False)
        print(packed)
        packed.data.sum().backward()
        print(seqs[0].grad)
        for cls in (torch.nn.RNN, torch.nn.GRU):
            rnn = cls(1, 2, batch_first=True)
            print(type(rnn(torch.ones(2, 3, 1))[0].grad_fn).__name__)
    """)


def test_collate_keeps_string_columns_as_tuples():
    same_output("""
        DataLoader = torch.utils.data.DataLoader
        from collections import namedtuple
        P = namedtuple('P', 'x name')
        print(next(iter(DataLoader([(torch.ones(2), 1, 'x'), (torch.zeros(2), 2, 'y')], batch_size=2))))
        print(next(iter(DataLoader([[1, 'a'], [2, 'b']], batch_size=2))))
        print(next(iter(DataLoader([{'s': 'a', 'v': 1.5}, {'s': 'b', 'v': 2.5}], batch_size=2))))
        print(next(iter(DataLoader([P(1, 'a'), P(2, 'b')], batch_size=2))))
        print(next(iter(DataLoader(['a', 'b', 'c'], batch_size=2))))
    """)


def test_get_parameter_and_get_buffer():
    same_output("""
        m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
        print(m.get_parameter('0.bias').shape, m.get_buffer('1.running_var'))
        for t in ('1.num_batches_tracked', '0', '0.nope', '1.weight', '5.weight', ''):
            tr(lambda: m.get_parameter(t).shape)
            tr(lambda: m.get_buffer(t).shape)
    """)


def test_embedding_bag_grad_fn_and_gradients():
    """The bag reduction is one op (EmbeddingBagBackward0); max sends each gradient to the first maximum."""
    same_output("""
        F = torch.nn.functional
        w = torch.tensor([[1., 2.], [1., 0.], [3., -1.], [0., 5.]], requires_grad=True)
        inp = torch.tensor([0, 1, 1, 2, 3, 0])
        for mode in ('sum', 'mean', 'max'):
            for kw in (dict(offsets=torch.tensor([0, 2, 2, 4])), dict(offsets=torch.tensor([0, 3]), padding_idx=1)):
                o = F.embedding_bag(inp, w, mode=mode, **kw)
                w.grad = None
                (o * torch.arange(1., o.numel() + 1).reshape(o.shape)).sum().backward()
                print(mode, o, w.grad)
        print(torch.nn.EmbeddingBag(4, 2)(torch.tensor([[1, 2], [3, 3]])).grad_fn)
    """)
