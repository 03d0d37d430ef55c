NETS = {
 "unet": ("[32,32,32]", "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}"),
 "segresnet": ("[32,32,32]", "{init_filters: 8, blocks_down: [1, 1, 1], blocks_up: [1, 1]}"),
 "swinunetr": ("[64,64,64]", "{feature_size: 12, depths: [1, 1, 1, 1], num_heads: [3, 3, 3, 3]}"),
 "unetr": ("[32,32,32]", "{feature_size: 8, hidden_size: 48, mlp_dim: 96, num_heads: 4}"),
 "dynunet": ("[32,32,32]", "{filters: [4, 8, 16, 32]}"),
 "unet3d_mlperf": ("[64,64,64]", "{filters: [4, 8, 16, 32, 32, 32]}"),
}
if __name__ == "__main__":
    import sys, yaml, torch, time
    from accelerated_seg.models import model_spec, build_from_spec
    if len(sys.argv) > 1:
        n = sys.argv[1]; print(NETS[n][0], NETS[n][1]); sys.exit()
    for n, (p, a) in NETS.items():
        patch = yaml.safe_load(p); spec = model_spec(n, 1, 3, patch, yaml.safe_load(a))
        net = build_from_spec(spec); t=time.time()
        y = net(torch.randn(1, 1, *patch))
        print(n, sum(x.numel() for x in net.parameters()), tuple(y.shape), round(time.time()-t,2), spec.args)
