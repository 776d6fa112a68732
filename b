ibscope 0.1.0 report

Captures
  #  file                             link type           frames IB frames err
  0  ...outputs-xm9mvtls/outside.pcap 247 INFINIBAND           3         3   0

Summary
  frames 3, InfiniBand 3
  from 2026-01-01T00:00:00.000000000Z, 2.0 us
  port pool 32768-60999 (28232 ports), pool_high at 90%
  findings 0

CM connections
  requests 3, established 0, rejected 0, closed 0,
  retransmissions 0

Sources: source ports in use against the pool
                                | one port each         | per destination
  source           space  conns |   peak  pool%   frame |   peak  pool%   frame
  10.0.0.1         TCP        3 |      3    0.0       3 |      3    0.0       3
                   2 requests used a source port outside the pool
  ! = pool exhausted in that model

Findings by kind
  none
