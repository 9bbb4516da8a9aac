"""Tutorial-style nn, optim and data programs run under real torch and pjtorch (round 6): what they print, their
warnings and errors included, must be the same."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import pjtorch  # noqa: E402
from tensor_oracle import same_output  # noqa: E402


def test_transformer_masks_of_mixed_dtypes_warn_once_per_layer_kind():
    """A bool padding mask beside a float attention mask is converted, with PyTorch's deprecation warning naming
    the arguments of the module it was passed to; wrong mask and input shapes get PyTorch's errors."""
    same_output("""
        nn = torch.nn
        x = torch.linspace(-1, 1, 2 * 3 * 4).reshape(2, 3, 4)
        causal = nn.Transformer.generate_square_subsequent_mask(3)
        padding = torch.tensor([[False] * 3, [False, False, True]])
        layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
        encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        print(encoder(x, mask=causal, src_key_padding_mask=padding).shape)
        print(layer(x, src_mask=causal, src_key_padding_mask=padding).shape)
        mha = nn.MultiheadAttention(4, 2)
        q = x.transpose(0, 1)
        print(mha(q, q, q, key_padding_mask=padding, attn_mask=causal)[1].shape)
        tr(lambda: mha(q, q, q, key_padding_mask=padding.long()))
        # the shapes of the inputs and masks are checked as PyTorch checks them
        tr(lambda: mha(q, q, q, attn_mask=torch.zeros(2, 3)))
        tr(lambda: mha(q, q, q, attn_mask=torch.zeros(3, 3, 3)))
        tr(lambda: mha(q, q, q, attn_mask=torch.zeros(1, 4, 3, 3)))
        tr(lambda: mha(q, q, q, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool)))
        tr(lambda: mha(q, q, q, key_padding_mask=torch.zeros(3, 3, dtype=torch.bool)))
        tr(lambda: mha(q, q, q, key_padding_mask=torch.zeros(2, 3, 1, dtype=torch.bool)))
        tr(lambda: mha(q, q[:, :, :3], q))
        tr(lambda: mha(q, q[0], q))
        tr(lambda: mha(q, q[:2], q))
        tr(lambda: mha(q[0], q[0], q[0], attn_mask=torch.zeros(3, 2, 2)))
        tr(lambda: mha(q[0], q[0], q[0], key_padding_mask=torch.zeros(2, 2, dtype=torch.bool)))
        tr(lambda: mha(q[0, 0], q[0], q[0]))
        tr(lambda: nn.functional.multi_head_attention_forward(q, q, q, 4, 3, mha.in_proj_weight, mha.in_proj_bias,
                                                              None, None, False, 0.0, mha.out_proj.weight, None))
    """)


def test_scheduler_state_dicts():
    """MultiStepLR keeps a Counter, OneCycleLR and ReduceLROnPlateau list their fields in PyTorch's order,
    CosineAnnealingWarmRestarts never counts steps, CyclicLR saves its custom scale_fn last."""
    same_output("""
        S = torch.optim.lr_scheduler
        class Scale:
            def __init__(self):
                self.k = 0.5
            def __call__(self, x):
                return self.k
        def opt():
            return torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1, momentum=0.9)
        for make in (lambda o: S.MultiStepLR(o, milestones=[5, 2, 5]),
                     lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=10),
                     lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2),
                     lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2),
                     lambda o: S.CyclicLR(o, 0.01, 0.1, scale_fn=lambda x: 1.0),
                     lambda o: S.CyclicLR(o, 0.01, 0.1, scale_fn=Scale())):
            o = opt()
            s = make(o)
            for _ in range(3):
                o.step()
                s.step()
            state = s.state_dict()
            print(type(s).__name__, state)
            s2 = make(opt())
            s2.load_state_dict(state)
            print(s2.get_last_lr(), s2.last_epoch)
        o = opt()
        plateau = S.ReduceLROnPlateau(o, patience=0)
        for metric in (1.0, 2.0, 3.0):
            plateau.step(metric)
        print(plateau.state_dict())
        plateau.load_state_dict(plateau.state_dict())
        print(plateau.mode_worse, plateau._is_better(0.5, 1.0))
    """)


def test_regression_losses_refuse_targets_that_do_not_broadcast():
    same_output("""
        F = torch.nn.functional
        pred, target = torch.ones(3, 4), torch.zeros(2, 4)
        for loss in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss):
            tr(lambda: loss(pred, target))
        tr(lambda: F.mse_loss(pred, torch.zeros(4)))
    """)


def test_optimizer_step_and_state_dict_hooks():
    same_output("""
        import sys
        optimizer_module = sys.modules[torch.optim.Optimizer.__module__]  # torch.optim.optimizer of either library
        register_optimizer_step_pre_hook = optimizer_module.register_optimizer_step_pre_hook
        register_optimizer_step_post_hook = optimizer_module.register_optimizer_step_post_hook
        w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        class MySGD(torch.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, dict(lr=lr))
            @torch.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group['params']:
                        p.add_(p.grad, alpha=-group['lr'])
                print('stepped')
        opt = MySGD([w])
        g1 = register_optimizer_step_pre_hook(lambda o, args, kwargs: print('global pre', type(o).__name__, len(args)))
        g2 = register_optimizer_step_post_hook(lambda o, args, kwargs: print('global post', kwargs))
        h1 = opt.register_step_pre_hook(lambda o, args, kwargs: print('own pre'))
        opt.register_step_post_hook(lambda o, args, kwargs: print('own post'))
        w.grad = torch.ones(2)
        opt.step()
        h1.remove()
        g1.remove()
        opt.step(closure=None)
        g2.remove()
        opt.register_step_pre_hook(lambda o, args, kwargs: ((o,), {'closure': lambda: 7.0}))
        print(torch.optim.SGD([w], lr=0.1).step(lambda: 3.0), w)
        sgd = torch.optim.SGD([w], lr=0.1)
        sgd.register_step_pre_hook(lambda o, args, kwargs: 5)
        try:
            sgd.step()
        except RuntimeError as error:
            print(str(error).split('>')[1])  # after the step function's repr
        adam = torch.optim.Adam([w])
        adam.register_state_dict_pre_hook(lambda o: print('state_dict pre'))
        adam.register_state_dict_post_hook(lambda o, sd: {**sd, 'extra': 1})
        adam.register_load_state_dict_pre_hook(lambda o, sd: print('load pre', sorted(sd)))
        adam.register_load_state_dict_pre_hook(lambda o, sd: print('load first'), prepend=True)
        adam.register_load_state_dict_post_hook(lambda o: print('load post'))
        state = adam.state_dict()
        print(sorted(state))
        adam.load_state_dict(state)
    """)


def test_stack_chain_datasets_and_weighted_sampler():
    same_output("""
        data = torch.utils.data
        a, b = data.TensorDataset(torch.arange(4.)), [10, 11, 12, 13]
        print(data.StackDataset(a, b)[1], list(data.DataLoader(data.StackDataset(x=a, y=b), batch_size=3)))
        tr(lambda: data.StackDataset(a, y=b))
        tr(lambda: data.StackDataset())
        tr(lambda: data.StackDataset(a, [1]))
        class Count(data.IterableDataset):
            def __init__(self, n):
                self.n = n
            def __iter__(self):
                return iter(range(self.n))
            def __len__(self):
                return self.n
        chain = data.ChainDataset([Count(2), Count(3)])
        print(list(chain), len(chain), list(data.DataLoader(chain, batch_size=2)))
        print(type(Count(1) + Count(2)).__name__, list(Count(1) + Count(2)))
        tr(lambda: list(data.ChainDataset([Count(1), a])))
        sampler = data.WeightedRandomSampler([0, 0, 1.0, 0], 5)
        print(list(sampler), len(sampler), sampler.weights)
        print(list(data.DataLoader(a, batch_size=2, sampler=data.WeightedRandomSampler([0, 0, 0, 3], 3))))
        tr(lambda: data.WeightedRandomSampler([1, 2], 0))
        tr(lambda: data.WeightedRandomSampler([1, 2], 2, replacement=1))
        tr(lambda: data.WeightedRandomSampler([[1, 2]], 2))
    """)


def test_lazy_transposed_convolutions_and_instance_norms():
    same_output("""
        nn = torch.nn
        norm = nn.LazyInstanceNorm1d()
        print(norm, list(norm.state_dict()))
        print(norm(torch.linspace(0, 1, 24).reshape(2, 3, 4))[0], norm, norm.running_mean)
        norm = nn.LazyBatchNorm1d(bias=False)
        norm(torch.ones(2, 3))
        print(norm, [name for name, _ in norm.named_parameters()])
        conv = nn.LazyConvTranspose2d(4, 3, stride=2, groups=2, bias=False, output_padding=1)
        print(conv)
        print(conv(torch.ones(2, 3, 3)).shape, conv, conv.weight.shape, conv.bias)
        print(nn.LazyConvTranspose1d(2, 3), nn.LazyConvTranspose3d(2, 3, padding=1))
        tr(lambda: nn.LazyConvTranspose2d(4, 3, groups=3)(torch.ones(1, 2, 3, 3)))
    """)


def test_instance_norm_bias_flag_and_channel_check():
    same_output("""
        nn = torch.nn
        norm = nn.InstanceNorm1d(3, affine=True, bias=False)
        print(norm, [name for name, _ in norm.named_parameters()], list(norm.state_dict()))
        print(norm(torch.linspace(0, 1, 12).reshape(1, 3, 4)))
        tr(lambda: nn.InstanceNorm1d(4, affine=True)(torch.ones(2, 3, 5)))
        tr(lambda: nn.InstanceNorm1d(4, affine=True)(torch.ones(3, 5)))
        tr(lambda: nn.InstanceNorm2d(4)(torch.ones(2, 3, 5, 5)).shape)
        tr(lambda: nn.InstanceNorm2d(4)(torch.ones(3, 5, 5)).shape)
    """)


def test_sync_batch_norm_without_a_process_group():
    same_output("""
        nn = torch.nn
        norm = nn.SyncBatchNorm(3)
        print(norm, norm.process_group)
        print(norm(torch.linspace(0, 1, 12).reshape(2, 3, 2)), norm.running_mean, norm.num_batches_tracked)
        tr(lambda: norm(torch.ones(3)))
        tr(lambda: norm(torch.ones(2, 0)))
        net = nn.Sequential(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2),
                            nn.Sequential(nn.BatchNorm1d(2, affine=False, momentum=None), nn.ReLU()))
        net[1].running_mean.fill_(0.5)
        net.eval()
        synced = nn.SyncBatchNorm.convert_sync_batchnorm(net)
        print(synced, synced is net, synced[1].running_mean, synced[1].weight is net[1].weight, synced[1].training)
        print(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(4, bias=False)), list(synced.state_dict()))
    """)


def test_pin_memory_without_an_accelerator_warns_per_iterator():
    if torch.cuda.is_available() or pjtorch.cuda.is_available():
        pytest.skip("pinning is real where an accelerator exists")
    same_output("""
        data = torch.utils.data
        loader = data.DataLoader(data.TensorDataset(torch.arange(6.)), batch_size=4, pin_memory=True)
        print([batch[0].shape for batch in loader])
        print(len(list(loader)))
        print(len(list(data.DataLoader(list(range(3)), pin_memory=True, pin_memory_device='cpu'))))
    """)


def test_pruning_tutorial():
    """torch.nn.utils.prune as pytorch.org's pruning tutorial uses it (the deterministic methods)."""
    same_output("""
        import importlib
        nn = torch.nn
        prune = importlib.import_module(torch.nn.utils.__name__ + '.prune')
        def filled(module):
            with torch.no_grad():
                module.weight.copy_(torch.tensor([[0.5, -2.0, 3.0], [-0.25, 6.0, -1.0]]))
                module.bias.copy_(torch.tensor([0.1, -0.2]))
            return module
        lin = filled(nn.Linear(3, 2))
        prune.l1_unstructured(lin, name='weight', amount=0.3)
        print([n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()])
        print(type(lin.weight).__name__, lin.weight.grad_fn.__class__.__name__, lin.weight_mask)
        prune.l1_unstructured(lin, name='bias', amount=1)
        print(lin.bias_mask, lin.bias)
        prune.ln_structured(lin, name='weight', amount=1, n=2, dim=1)
        print(lin.weight_mask, list(lin.state_dict()))
        hook = [h for h in lin._forward_pre_hooks.values() if h._tensor_name == 'weight'][0]
        print(type(hook).__name__, [type(m).__name__ for m in hook], len(hook))
        out = lin(torch.ones(2, 3))
        out.sum().backward()
        print(out, lin.weight_orig.grad)
        prune.remove(lin, 'weight')
        print([n for n, _ in lin.named_parameters()], type(lin.weight).__name__, prune.is_pruned(lin))
        pairs = ((filled(nn.Linear(3, 2)), 'weight'), (filled(nn.Linear(3, 2)), 'bias'))
        prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=0.5)
        print(pairs[0][0].weight, pairs[1][0].bias, prune.is_pruned(pairs[1][0]))
        class EveryOther(prune.BasePruningMethod):
            PRUNING_TYPE = 'unstructured'
            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask
        print(EveryOther.apply(lin, 'bias').__class__.__name__, lin.bias)
        lin = filled(nn.Linear(3, 2))
        prune.custom_from_mask(lin, 'weight', torch.tensor([[1, 0, 1], [0, 1, 1]]))
        prune.l1_unstructured(lin, 'weight', amount=2, importance_scores=torch.tensor([[9., 1, 8], [2, 7, 3]]))
        prune.identity(lin, 'bias')
        print(lin.weight, lin.weight_mask, lin.bias_mask)
        tr(lambda: prune.l1_unstructured(nn.Linear(3, 2), 'weight', amount=1.5))
        tr(lambda: prune.l1_unstructured(nn.Linear(3, 2), 'weight', amount=-1))
        tr(lambda: prune.l1_unstructured(nn.Linear(3, 2), 'weight', amount='a'))
        tr(lambda: prune.l1_unstructured(nn.Linear(3, 2), 'weight', amount=7))
        tr(lambda: prune.ln_structured(nn.Linear(3, 2), 'bias', amount=1, n=1, dim=0))
        tr(lambda: prune.ln_structured(nn.Linear(3, 2), 'weight', amount=1, n=1, dim=2))
        tr(lambda: prune.remove(nn.Linear(3, 2), 'weight'))
        tr(lambda: prune.l1_unstructured(nn.Linear(3, 2), 'weight', amount=1, importance_scores=torch.ones(3)))
    """)


def test_batch_norm_fusion():
    same_output("""
        nn, utils = torch.nn, torch.nn.utils
        lin, bn = nn.Linear(3, 2), nn.BatchNorm1d(2)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[1., 2, 3], [-1, 0, 1]]))
            lin.bias.fill_(0.5)
            bn.weight.copy_(torch.tensor([1.5, 0.5]))
            bn.running_mean.fill_(0.25)
            bn.running_var.copy_(torch.tensor([4.0, 0.25]))
        tr(lambda: utils.fuse_linear_bn_eval(lin, bn))
        lin.eval()
        bn.eval()
        fused = utils.fuse_linear_bn_eval(lin, bn)
        print(fused, fused.weight, fused.bias, torch.allclose(fused(torch.ones(2, 3)), bn(lin(torch.ones(2, 3)))))
        tr(lambda: utils.fuse_linear_bn_eval(lin, nn.BatchNorm1d(3).eval()))
        tr(lambda: utils.fuse_linear_bn_eval(lin, nn.BatchNorm1d(2, track_running_stats=False).eval()))
        conv = nn.Conv1d(3, 2, 1, bias=False).eval()
        with torch.no_grad():
            conv.weight.copy_(lin.weight.unsqueeze(-1))
        fused = utils.fuse_conv_bn_eval(conv, bn)
        print(fused.weight, fused.bias, type(fused.bias).__name__)
        transposed = nn.ConvTranspose1d(2, 3, 1).eval()
        print(utils.fuse_conv_bn_eval(transposed, nn.BatchNorm1d(3).eval(), transpose=True).weight.shape)
        weight, bias = utils.fuse_conv_bn_weights(conv.weight, None, bn.running_mean, bn.running_var, 1e-3, None, None)
        print(weight.requires_grad, bias.requires_grad, bias)
    """)


def test_module_state_dict_hooks_and_conversions():
    same_output("""
        nn = torch.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
        m.register_load_state_dict_post_hook(lambda mod, keys: print('post load', type(mod).__name__, keys))
        m[0].register_load_state_dict_pre_hook(lambda mod, sd, prefix, meta, strict, missing, unexpected, errors:
                                               print('pre load', prefix, sorted(sd), meta, strict))
        m[2]._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: print('legacy pre load', prefix))
        print(m.load_state_dict(m.state_dict()))
        def drop_bias(mod, keys):
            keys.missing_keys.remove('2.bias')
        m.register_load_state_dict_post_hook(drop_bias)
        partial = m.state_dict()
        del partial['2.bias']
        print(m.load_state_dict(partial))
        m.register_load_state_dict_post_hook(lambda mod, keys: keys)
        tr(lambda: m.load_state_dict(m.state_dict()))
        m[2].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: print('save pre', prefix, keep_vars))
        m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: print('save post', repr(prefix), len(sd), meta))
        m[0]._register_state_dict_hook(lambda mod, sd, prefix, meta: {k: v for k, v in sd.items() if 'bias' not in k})
        print(list(m.state_dict(keep_vars=True)))
        m[1].register_state_dict_post_hook(lambda mod, sd, prefix, meta: {})
        tr(lambda: m.state_dict())
        module_hooks = nn.modules.module
        pre = module_hooks.register_module_forward_pre_hook(lambda mod, args: print('global pre', type(mod).__name__))
        post = module_hooks.register_module_forward_hook(
            lambda mod, args, kwargs, out: print('global post', type(mod).__name__, kwargs), with_kwargs=True)
        m[0].register_forward_pre_hook(lambda mod, args: print('own pre'))
        print(m(torch.ones(1, 2)).shape)
        pre.remove()
        post.remove()
        print(m(torch.ones(1, 2)).shape)
        lin = nn.Linear(2, 3)
        print(lin.type(torch.float64).weight.dtype, lin.to_empty(device='cpu').weight.shape, lin.share_memory() is lin)
        print(lin.weight.dtype, type(lin.weight).__name__)
    """)
