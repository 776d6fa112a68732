# End-to-end tests of the ibscope command (tests/analyzer/test_analyzer.py),
# one ctest test per group.  Included by tests/CMakeLists.txt.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  foreach(group badinput tmpdir terminal escapes stdin merge convert json jsonl csv failon kinds details chains width exhaustion forecast golden severity busy threads options)
    add_test(NAME analyzer.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_analyzer.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope
                     --gen ${CMAKE_BINARY_DIR}/bin/ibscope-gen
                     --source-dir ${PROJECT_SOURCE_DIR}
                     ${group})
    set_tests_properties(analyzer.${group} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
  endforeach()
endif()

# Scapy's RoCE layer against ibscope's ICRC, on the samples and the real
# captures: Debian's python3 (the one python3-scapy installs into).
file(GLOB IBSCOPE_SCAPY_CAPTURES ${PROJECT_SOURCE_DIR}/samples/captures/*.pcap)
list(APPEND IBSCOPE_SCAPY_CAPTURES ${IBSCOPE_REAL_CAPTURES})
if(TARGET ibscope AND EXISTS /usr/bin/python3)
  add_test(NAME analyzer.scapy_icrc
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/scapy_icrc.py
                   ${CMAKE_BINARY_DIR}/bin/ibscope ${IBSCOPE_SCAPY_CAPTURES})
  set_tests_properties(analyzer.scapy_icrc PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# The carriers' settings and PAUSE/PFC frames: Scapy builds them, tshark's
# own decode of each value is the answer (Debian's python3, for Scapy).
find_program(IBSCOPE_TSHARK_FOR_WIRE tshark)
if(TARGET ibscope AND EXISTS /usr/bin/python3)
  if(NOT IBSCOPE_TSHARK_FOR_WIRE)
    set(IBSCOPE_TSHARK_FOR_WIRE tshark)
  endif()
  add_test(NAME analyzer.wire_fields
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/wire_fields.py
                   ${CMAKE_BINARY_DIR}/bin/ibscope ${IBSCOPE_TSHARK_FOR_WIRE})
  set_tests_properties(analyzer.wire_fields PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# The analyzer on the real captures (IBSCOPE_REAL_CAPTURES_DIR: made outside this
# project; read in place): Wireshark's connections, and no false findings.
find_program(IBSCOPE_TSHARK_FOR_REAL tshark)
if(TARGET ibscope AND Python3_Interpreter_FOUND AND IBSCOPE_REAL_CAPTURES)
  if(NOT IBSCOPE_TSHARK_FOR_REAL)
    set(IBSCOPE_TSHARK_FOR_REAL tshark)
  endif()
  add_test(NAME analyzer.real_captures
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/real_captures.py
                   ${CMAKE_BINARY_DIR}/bin/ibscope ${IBSCOPE_TSHARK_FOR_REAL}
                   ${IBSCOPE_REAL_CAPTURES})
  set_tests_properties(analyzer.real_captures PROPERTIES SKIP_RETURN_CODE 77)
endif()

# The HTML report of every sample in headless Chromium: its numbers against
# the JSON report's, nothing fetched, a screenshot (tests/analyzer/test_html.py).
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  add_test(NAME analyzer.html
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_html.py
                   --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --gen ${CMAKE_BINARY_DIR}/bin/ibscope-gen
                   --source-dir ${PROJECT_SOURCE_DIR})
  set_tests_properties(analyzer.html PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# ibscope merge: per-host reports against analysing together, hostile
# inputs, the merged page in Chromium (tests/analyzer/test_merge.py).
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  foreach(group equal errors values twice html ends forecast settings)
    add_test(NAME merge.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_merge.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --source-dir ${PROJECT_SOURCE_DIR}
                     --gen ${CMAKE_BINARY_DIR}/bin/ibscope-gen
                     ${group})
    set_tests_properties(merge.${group} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endif()

# Captures of several hosts as one (tests/analyzer/test_fabric.py): against
# the generator's truth (one vantage point, offsets, losses), and captures
# that share no packet as before.
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  foreach(group two three rotated views extract gaps mirror)
    add_test(NAME fabric.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_fabric.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --gen ${CMAKE_BINARY_DIR}/bin/ibscope-gen
                     --source-dir ${PROJECT_SOURCE_DIR}
                     --real-captures ${IBSCOPE_REAL_CAPTURES_DIR} ${group})
    set_tests_properties(fabric.${group} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endif()

# RDMA CM as the Linux kernel runs it (issue 34; tests/analyzer/test_cm_kernel.py):
# each capture of ibscope-gen cm-kernel against its truth.tsv, key by key.
if(TARGET ibscope AND TARGET ibscope-gen AND Python3_Interpreter_FOUND)
  add_test(NAME analyzer.cm_kernel
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_cm_kernel.py
                   --ibscope $<TARGET_FILE:ibscope> --gen $<TARGET_FILE:ibscope-gen>)
  set_tests_properties(analyzer.cm_kernel PROPERTIES TIMEOUT 600)
  # The transport analysis (issue 37; tests/analyzer/test_transport.py):
  # every capture of ibscope-gen rc, on both link types, finds exactly the
  # findings of its truth.tsv, at their frames, with their details.
  add_test(NAME analyzer.transport
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_transport.py
                   --ibscope $<TARGET_FILE:ibscope> --gen $<TARGET_FILE:ibscope-gen>)
  set_tests_properties(analyzer.transport PROPERTIES TIMEOUT 300 LABELS quick)
  # The wire audit (issue 38; tests/analyzer/test_wire_audit.py): every capture
  # of ibscope-gen wire, both link types, finds exactly its truth's rows of the
  # five kinds; there, on the samples and on the real captures, the findings
  # and settings[] are what the contract's rules give on tshark's decode.
  file(GLOB IBSCOPE_WIRE_SAMPLES ${PROJECT_SOURCE_DIR}/samples/captures/*.pcap)
  find_program(IBSCOPE_TSHARK_FOR_AUDIT tshark)
  if(NOT IBSCOPE_TSHARK_FOR_AUDIT)
    set(IBSCOPE_TSHARK_FOR_AUDIT tshark)
  endif()
  add_test(NAME analyzer.wire_audit
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_wire_audit.py
                   --ibscope $<TARGET_FILE:ibscope> --gen $<TARGET_FILE:ibscope-gen>
                   --tshark ${IBSCOPE_TSHARK_FOR_AUDIT}
                   ${IBSCOPE_WIRE_SAMPLES} ${IBSCOPE_REAL_CAPTURES})
  set_tests_properties(analyzer.wire_audit PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  # The wire audit's congestion part (issue 38; tests/analyzer/test_congestion.py):
  # ce_without_cnp and pfc_storm exactly as ibscope-gen wire's truth on both
  # link types, the CE/CNP and PFC statistics against tshark's decode and
  # pause times worked out by hand, the options, the formats and the merge.
  add_test(NAME analyzer.congestion
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_congestion.py
                   --ibscope $<TARGET_FILE:ibscope> --gen $<TARGET_FILE:ibscope-gen>)
  set_tests_properties(analyzer.congestion PROPERTIES TIMEOUT 300 LABELS quick)
  # The traces of the queue pairs with problems (qps[].trace) against tshark's
  # decode and the truth, their caps, a merge, and the HTML report's
  # sequence charts and timeline in Chromium (tests/analyzer/test_qp_trace.py).
  add_test(NAME analyzer.qp_trace
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_qp_trace.py
                   --ibscope $<TARGET_FILE:ibscope> --gen $<TARGET_FILE:ibscope-gen>)
  set_tests_properties(analyzer.qp_trace PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  # The HTML report's wire settings and congestion (issue 38 item 4;
  # tests/analyzer/test_html_wire.py): in Chromium, each settings row is the
  # JSON's settings[], the marked cells exactly those the findings point at
  # (by tshark's decode of their frames), the CE/CNP/pause lanes add up to
  # cnp[] and pfc[], on every ibscope-gen wire case, the real captures, a merge.
  add_test(NAME analyzer.html_wire
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_html_wire.py
                   --ibscope $<TARGET_FILE:ibscope> --gen $<TARGET_FILE:ibscope-gen>
                   --tshark ${IBSCOPE_TSHARK_FOR_AUDIT} ${IBSCOPE_REAL_CAPTURES})
  set_tests_properties(analyzer.html_wire PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
  # One port pool per host (tests/analyzer/test_hosts.py): by LocalCAGUID,
  # by --host, in every view and a merge; bad --host values refused.
  add_test(NAME analyzer.hosts
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_hosts.py
                   --ibscope $<TARGET_FILE:ibscope> --gen $<TARGET_FILE:ibscope-gen>)
  set_tests_properties(analyzer.hosts PROPERTIES TIMEOUT 300)
endif()

# A capture with no InfiniBand says what it holds instead: the real iWARP
# captures (IBSCOPE_REAL_CAPTURES_DIR/iwarp, when there), RoCEv2 on UDP 4792,
# a link type ibscope does not read (tests/analyzer/test_not_ib.py).
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  add_test(NAME analyzer.not_ib
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_not_ib.py
                   --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --source-dir ${PROJECT_SOURCE_DIR}
                   --iwarp-dir ${IBSCOPE_REAL_CAPTURES_DIR}/iwarp)
endif()
