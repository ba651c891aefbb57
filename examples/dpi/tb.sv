// SPDX-License-Identifier: MIT
// tb - drives random Work Requests through the wqe golden model and checks
// mlx5_ctrl_parser against it.
//
// Each request is made at random (transport, operation, SGEs or inline
// bytes, flags, keys, QPN, WQE index, sq_sig_all) and encoded by the model,
// from its text form or (every other one) from its fields. Its first 16
// bytes, the control segment, go into the design; the design's outputs one
// cycle later must be the fields wqe_dpi_decode() gives for the same bytes.
// The model's packets are checked too: the count the decoder predicts, the
// first frame's ICRC (wqe_dpi_icrc() against the frame's own last 4 bytes)
// and its parsed PSN and opcode.
//
// Plusargs: +n=N requests (default 400), +seed=S (default 27), +broken to
// check the deliberately broken variant of the design instead (the run
// must then fail). Every disagreement prints a "MISMATCH" line; the run
// ends with done = 1 and errors = the number of them.
// A bench, not a design: its functions write module state with blocking
// assignments, from the one clocked process that calls them.
/* verilator lint_off BLKSEQ */
module tb (
    input  logic clk,
    output logic done,
    output int   errors
);
  import wqe_pkg::*;

  logic rst_n = 1'b0;
  logic in_valid = 1'b0;
  logic [127:0] ctrl = '0;
  logic ok_valid, bad_valid;
  // The raw opcode and opmod have no model field to compare with (op does).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0] ok_opcode, bad_opcode, ok_opmod, bad_opmod;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0] ok_index, bad_index;
  logic [23:0] ok_qpn, bad_qpn;
  logic [5:0] ok_ds, bad_ds;
  logic [4:0] ok_nblocks, bad_nblocks;
  logic ok_fence, bad_fence, ok_signaled, bad_signaled, ok_solicited, bad_solicited;
  logic [31:0] ok_imm, bad_imm;
  logic [2:0] ok_op, bad_op;
  logic ok_op_ok, bad_op_ok;

  mlx5_ctrl_parser #(.BROKEN(1'b0)) good (
      .clk, .rst_n, .in_valid, .ctrl, .out_valid(ok_valid), .opcode(ok_opcode),
      .opmod(ok_opmod), .wqe_index(ok_index), .qpn(ok_qpn), .ds(ok_ds), .nblocks(ok_nblocks),
      .fence(ok_fence), .signaled(ok_signaled), .solicited(ok_solicited), .imm(ok_imm),
      .op(ok_op), .op_ok(ok_op_ok));
  mlx5_ctrl_parser #(.BROKEN(1'b1)) broken (
      .clk, .rst_n, .in_valid, .ctrl, .out_valid(bad_valid), .opcode(bad_opcode),
      .opmod(bad_opmod), .wqe_index(bad_index), .qpn(bad_qpn), .ds(bad_ds),
      .nblocks(bad_nblocks), .fence(bad_fence), .signaled(bad_signaled),
      .solicited(bad_solicited), .imm(bad_imm), .op(bad_op), .op_ok(bad_op_ok));

  int n_req = 400, seed = 27, use_broken = 0;
  int req = 0, cycle = 0, state = 0, frames = 0;
  byte unsigned wqe[WQE_MAX];
  byte unsigned frame[FRAME_MAX];
  byte unsigned msg[MSG_MAX];
  byte unsigned inl[INLINE_MAX];
  longint unsigned f[FIELDS_MAX];
  longint unsigned pf[FIELDS_MAX];
  longint unsigned sge_addr[SGE_MAX];
  int unsigned sge_len[SGE_MAX], sge_lkey[SGE_MAX];
  string what, opts, which;

  initial begin
    if ($value$plusargs("n=%d", n_req)) ;
    if ($value$plusargs("seed=%d", seed)) ;
    use_broken = $test$plusargs("broken") ? 1 : 0;
    void'($urandom(seed));
    done = 1'b0;
    errors = 0;
  end

  function automatic void fail(input string s);
    $display("MISMATCH request %0d (%s): %s", req, what, s);
    errors++;
  endfunction

  function automatic void model_error(input string call, input int rc);
    $display("MODEL ERROR request %0d (%s): %s: %0d %s: %s", req, what, call, rc,
             wqe_dpi_err_str(rc), wqe_msg(msg));
    errors++;
  endfunction

  function automatic longint unsigned rand64();
    return {32'($urandom), 32'($urandom)};
  endfunction

  // The operations legal on each transport, as wqe_wr_opcode values and names.
  function automatic int pick_op(input int qp);
    int rc_ops[8] = '{2, 3, 9, 0, 1, 4, 5, 6};
    int uc_ops[4] = '{2, 3, 0, 1};
    int ud_ops[2] = '{2, 3};
    if (qp == 0) return rc_ops[$urandom_range(7)];
    if (qp == 1) return uc_ops[$urandom_range(3)];
    return ud_ops[$urandom_range(1)];
  endfunction

  function automatic string op_name(input int op);
    case (op)
      0: return "write";
      1: return "write_imm";
      2: return "send";
      3: return "send_imm";
      4: return "read";
      5: return "cas";
      6: return "faa";
      default: return "send_inv";
    endcase
  endfunction

  // One random request encoded into wqe[]: its length, or < 0.
  function automatic int make_request();
    string qps[3] = '{"rc", "uc", "ud"};
    int qp = $urandom_range(2);
    int op, nsge, ninl = 0, rc;
    int unsigned flags = $urandom_range(7);
    longint unsigned raddr = {rand64()} & 64'h0000_fff_ffff_fff8;
    int unsigned rkey = $urandom, imm = $urandom;
    longint unsigned swap = rand64(), cmp = rand64();
    bit atomic, fields = req % 2 == 1;
    string line, fl = "", sig_all = "";

    if (fields && qp == 2) qp = $urandom_range(1);  // UD needs the text form's address
    op = pick_op(qp);
    atomic = op == 5 || op == 6;
    nsge = atomic ? 1 : $urandom_range(3);
    for (int i = 0; i < nsge; i++) begin
      sge_addr[i] = rand64() & 64'h0000_ffff_ffff_ffff;
      sge_len[i] = atomic ? 8 : $urandom_range(2000);
      sge_lkey[i] = $urandom;
    end
    if (!atomic && op != 4 && $urandom_range(3) == 0) begin
      nsge = 0;
      ninl = $urandom_range(16);
      for (int i = 0; i < ninl; i++) inl[i] = 8'($urandom);
    end
    // (string variables: a ?: of two literals would be padded to one width)
    if ($urandom_range(3) == 0) sig_all = " --sig-all";
    opts = $sformatf("--qp %s --qpn 0x%0h --wqe-index %0d%s", qps[qp], 24'($urandom),
                     16'($urandom), sig_all);
    if (fields) begin
      what = $sformatf("fields op %0d flags %0d, %0d SGEs, %0d inline; %s", op, flags, nsge,
                       ninl, opts);
      rc = wqe_dpi_encode_fields(opts, op, flags, rand64(), raddr, rkey, imm, swap, cmp, 0, 0,
                                 nsge, sge_addr, sge_len, sge_lkey, inl, ninl, wqe, WQE_MAX,
                                 msg, MSG_MAX);
      if (rc < 0) model_error("wqe_dpi_encode_fields", rc);
      return rc;
    end
    line = op_name(op);
    for (int i = 0; i < nsge; i++)
      line = $sformatf("%s sge=0x%0h:%0d:0x%0h", line, sge_addr[i], sge_len[i], sge_lkey[i]);
    if (ninl > 0 || (!atomic && op != 4 && nsge == 0 && $urandom_range(1) == 0)) begin
      line = {line, " inline="};
      for (int i = 0; i < ninl; i++) line = $sformatf("%s%02h", line, inl[i]);
      if (ninl == 0) line = {line, "00"};
    end
    if (op == 0 || op == 1 || op == 4 || atomic)
      line = $sformatf("%s raddr=0x%0h rkey=0x%0h", line, raddr, rkey);
    if (op == 1 || op == 3) line = $sformatf("%s imm=0x%0h", line, imm);
    if (op == 9) line = $sformatf("%s inv=0x%0h", line, imm);
    if (op == 5) line = $sformatf("%s swap=0x%0h compare=0x%0h", line, swap, cmp);
    if (op == 6) line = $sformatf("%s add=0x%0h", line, swap);
    if (qp == 2)
      line = $sformatf("%s dqpn=0x%0h qkey=0x%0h dgid=10.0.%0d.%0d", line, 24'($urandom),
                       $urandom, 8'($urandom), 8'($urandom));
    if (flags[0]) fl = "fence";
    if (flags[1]) fl = fl == "" ? "signaled" : {fl, ",signaled"};
    if (flags[2]) fl = fl == "" ? "solicited" : {fl, ",solicited"};
    if (fl != "") line = {line, " flags=", fl};
    what = {line, "; ", opts};
    rc = wqe_dpi_encode(line, opts, wqe, WQE_MAX, msg, MSG_MAX);
    if (rc < 0) model_error("wqe_dpi_encode", rc);
    return rc;
  endfunction

  // The model's packets of wqe[] against its own decoder and parser.
  function automatic void check_packets(input int len);
    int n = wqe_dpi_packet_count(opts, wqe, len, msg, MSG_MAX);
    int flen, rc;
    int unsigned icrc;
    if (n < 0) begin
      model_error("wqe_dpi_packet_count", n);
      return;
    end
    if (longint'(n) != f[WQE_D_NPKTS]) fail($sformatf("packet count %0d, decoder %0d", n,
                                                      f[WQE_D_NPKTS]));
    // No packet: an error the decoder must report, or a UD message over
    // the path MTU, which the NIC sends as nothing and completes (IBTA
    // C10-93.1.1): then the decoder says success and zero packets.
    if (n == 0) begin
      if (f[WQE_D_STATUS] == 0 && f[WQE_D_NPKTS] != 0)
        fail("no packet, yet the decoder counts some");
      return;
    end
    flen = wqe_dpi_packet(opts, wqe, len, 0, frame, FRAME_MAX, msg, MSG_MAX);
    if (flen < 0) begin
      model_error("wqe_dpi_packet", flen);
      return;
    end
    frames++;
    rc = wqe_dpi_icrc(frame, flen, icrc, msg, MSG_MAX);
    if (rc < 0) model_error("wqe_dpi_icrc", rc);
    else if (icrc != {frame[flen-1], frame[flen-2], frame[flen-3], frame[flen-4]})
      fail($sformatf("ICRC 0x%08h, frame carries %02h%02h%02h%02h", icrc, frame[flen-4],
                     frame[flen-3], frame[flen-2], frame[flen-1]));
    rc = wqe_dpi_parse(frame, flen, pf, FIELDS_MAX, msg, MSG_MAX);
    if (rc < 0) model_error("wqe_dpi_parse", rc);
    else if (pf[WQE_P_PSN] != 0 || pf[WQE_P_OPCODE] != f[WQE_D_FIRST_OPCODE] ||
             pf[WQE_P_ICRC_OK] != 1)
      fail($sformatf("frame 0: psn %0d opcode 0x%0h icrc_ok %0d, decoder opcode 0x%0h",
                     pf[WQE_P_PSN], pf[WQE_P_OPCODE], pf[WQE_P_ICRC_OK],
                     f[WQE_D_FIRST_OPCODE]));
  endfunction

  function automatic void expect_field(input string name, input longint unsigned dut,
                                       input longint unsigned model);
    if (dut != model) fail($sformatf("%s: model 0x%0h, design 0x%0h", name, model, dut));
  endfunction

  // The checked design's outputs against the model's decode of wqe[].
  function automatic void compare();
    bit b = use_broken != 0;
    expect_field("op_ok", b ? 64'(bad_op_ok) : 64'(ok_op_ok), 1);
    expect_field("op", b ? 64'(bad_op) : 64'(ok_op), f[WQE_D_OP]);
    expect_field("qpn", b ? 64'(bad_qpn) : 64'(ok_qpn), f[WQE_D_QPN]);
    expect_field("wqe_index", b ? 64'(bad_index) : 64'(ok_index), f[WQE_D_WQE_INDEX]);
    expect_field("ds", b ? 64'(bad_ds) : 64'(ok_ds), f[WQE_D_DS]);
    expect_field("nblocks", b ? 64'(bad_nblocks) : 64'(ok_nblocks), f[WQE_D_NBLOCKS]);
    expect_field("fence", b ? 64'(bad_fence) : 64'(ok_fence), f[WQE_D_FENCE]);
    expect_field("signaled", b ? 64'(bad_signaled) : 64'(ok_signaled), f[WQE_D_SIGNALED]);
    expect_field("solicited", b ? 64'(bad_solicited) : 64'(ok_solicited), f[WQE_D_SOLICITED]);
    expect_field("imm", b ? 64'(bad_imm) : 64'(ok_imm), f[WQE_D_IMM]);
  endfunction

  // 0: reset; 1: make a request and present its control segment; 2: the
  // design registers it; 3: its outputs are there (out_valid) to compare.
  always @(posedge clk) begin
    int len, rc;
    cycle <= cycle + 1;
    in_valid <= 1'b0;
    case (state)
      0: if (cycle == 2) begin
        rst_n <= 1'b1;
        state <= 1;
      end
      1: if (req == n_req) begin
        which = "good";
        if (use_broken != 0) which = "broken";
        $display("tb: %0d requests, %0d frames checked against the model (%s design): %0d errors",
                 req, frames, which, errors);
        done <= 1'b1;
        state <= 4;
      end else begin
        len = make_request();
        if (len > 0) begin
          rc = wqe_dpi_decode(opts, wqe, len, f, FIELDS_MAX, msg, MSG_MAX);
          if (rc < 0) model_error("wqe_dpi_decode", rc);
          check_packets(len);
          for (int i = 0; i < 16; i++) ctrl[127-8*i -: 8] <= wqe[i];
          in_valid <= 1'b1;
          state <= 2;
        end else begin
          req <= req + 1;
        end
      end
      2: state <= 3;
      3: begin
        if (!(use_broken != 0 ? bad_valid : ok_valid)) fail("no out_valid");
        else compare();
        req <= req + 1;
        state <= 1;
      end
      default: ;
    endcase
  end
endmodule
/* verilator lint_on BLKSEQ */
