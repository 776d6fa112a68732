"""netns.py - a veth pair whose listening end is in a network namespace of
its own, for ibscope --live: the live tests and bench/live_load.py use it."""
import os
import shutil
import subprocess


class Unavailable(Exception):
    """The machine does not allow what the pair needs (root, namespaces)."""


class Veth:
    """`send` stays in this namespace, `listen` goes into namespace `ns`."""

    def __init__(self):
        tag = "ibs%d" % (os.getpid() % 100000)
        self.ns, self.send, self.listen = tag, tag + "a", tag + "b"
        if os.geteuid() != 0 or not shutil.which("ip"):
            raise Unavailable("live runs need root and iproute2 (network namespaces)")
        steps = [
            ["ip", "netns", "add", self.ns],
            ["ip", "link", "add", self.send, "type", "veth", "peer", "name", self.listen,
             "netns", self.ns],
            # No IPv6 autoconfiguration: nothing but the replayed frames.
            ["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % self.send],
            ["ip", "netns", "exec", self.ns, "sysctl", "-qw",
             "net.ipv6.conf.%s.disable_ipv6=1" % self.listen],
            ["ip", "link", "set", self.send, "up"],
            ["ip", "netns", "exec", self.ns, "ip", "link", "set", self.listen, "up"],
        ]
        for cmd in steps:
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                self.close()
                raise Unavailable("this machine does not allow network namespaces and veth "
                                  "pairs (%s: %s)" % (" ".join(cmd[:3]), r.stderr.strip()))

    def close(self):
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.send], capture_output=True)

    def start_ibscope(self, ibscope, args, stdout=subprocess.PIPE, prefix=()):
        """ibscope --live on the listening end, once it watches (its pid is
        ibscope's: ip netns exec execs it); None if it did not start."""
        cmd = ["ip", "netns", "exec", self.ns] + list(prefix) + [ibscope, "--live",
                                                                  self.listen] + list(args)
        p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True, bufsize=1)
        line = p.stderr.readline()
        if "ibscope: watching" not in line:
            p.kill()
            p.communicate()
            return None
        return p

    def tcpreplay(self, path, *extra):
        return subprocess.run(["tcpreplay", "-i", self.send] + list(extra) + [path],
                              capture_output=True, text=True)
