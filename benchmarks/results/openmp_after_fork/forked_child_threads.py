import os, sys, torch
n = int(sys.argv[1])
torch.set_num_threads(2)
torch.nn.functional.conv3d(torch.ones(1, 4, 32, 32, 32), torch.ones(8, 4, 3, 3, 3))
pid = os.fork()
if pid == 0:
    torch.set_num_threads(n)
    torch.nn.functional.conv3d(torch.ones(1, 4, 32, 32, 32), torch.ones(8, 4, 3, 3, 3))
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("child threads", n, "status", status)
