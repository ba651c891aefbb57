// SPDX-License-Identifier: MIT
// mlx5_ctrl_parser - a small synthesizable block of a NIC's send path: it
// takes the 16-byte control segment of an mlx5 WQE (struct
// mlx5_wqe_ctrl_seg, big-endian; byte 0 in ctrl[127:120]) and breaks it
// into the fields the rest of the pipeline needs, one cycle later.
//
//   bytes 0-3   opmod | wqe_index[15:0] | opcode
//   bytes 4-7   qpn[23:0] | ds[5:0] (the top 2 bits of byte 7 are ignored)
//   byte  11    fm_ce_se: FENCE 0x80, CQ_UPDATE 0x08, SOLICITED 0x02
//   bytes 12-15 immediate (or the rkey SEND_INV invalidates)
//
// op is the operation family (0 SEND ... 7 ATOMIC_FETCH_AND_ADD, wqe's
// enum wqe_op), op_ok 0 for an opcode the model does not know; nblocks
// is the 64-byte blocks the WQE occupies: ceil(ds x 16 / 64).
//
// BROKEN = 1 builds a deliberately wrong variant (solicited read from the
// CQ_UPDATE bit), so the testbench can show that it catches a bug.
module mlx5_ctrl_parser #(
    parameter bit BROKEN = 1'b0
) (
    input  logic         clk,
    input  logic         rst_n,
    input  logic         in_valid,
    // bytes 8-10 (signature, reserved) and the top of byte 7 are not read
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [127:0] ctrl,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic         out_valid,
    output logic [7:0]   opcode,
    output logic [7:0]   opmod,
    output logic [15:0]  wqe_index,
    output logic [23:0]  qpn,
    output logic [5:0]   ds,
    output logic [4:0]   nblocks,
    output logic         fence,
    output logic         signaled,
    output logic         solicited,
    output logic [31:0]  imm,
    output logic [2:0]   op,
    output logic         op_ok
);
  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0] fm_ce_se;  // the other bits are mlx5's fence modes and SE variants
  /* verilator lint_on UNUSEDSIGNAL */
  logic [2:0] op_d;
  logic       op_ok_d;

  assign fm_ce_se = ctrl[39:32];  // byte 11

  // The mlx5 opcodes (MLX5_OPCODE_*) of the eight operations.
  always_comb begin
    op_ok_d = 1'b1;
    case (ctrl[103:96])  // byte 3
      8'h0a: op_d = 3'd0;  // SEND
      8'h0b: op_d = 3'd1;  // SEND_IMM
      8'h01: op_d = 3'd2;  // SEND_INVAL
      8'h08: op_d = 3'd3;  // RDMA_WRITE
      8'h09: op_d = 3'd4;  // RDMA_WRITE_IMM
      8'h10: op_d = 3'd5;  // RDMA_READ
      8'h11: op_d = 3'd6;  // ATOMIC_CS
      8'h12: op_d = 3'd7;  // ATOMIC_FA
      default: begin
        op_d = 3'd0;
        op_ok_d = 1'b0;
      end
    endcase
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      out_valid <= 1'b0;
      opcode <= '0;
      opmod <= '0;
      wqe_index <= '0;
      qpn <= '0;
      ds <= '0;
      nblocks <= '0;
      fence <= 1'b0;
      signaled <= 1'b0;
      solicited <= 1'b0;
      imm <= '0;
      op <= '0;
      op_ok <= 1'b0;
    end else begin
      out_valid <= in_valid;
      if (in_valid) begin
        opmod <= ctrl[127:120];
        wqe_index <= ctrl[119:104];
        opcode <= ctrl[103:96];
        qpn <= ctrl[95:72];
        ds <= ctrl[69:64];
        // ceil(ds / 4): 16-byte units into 64-byte blocks
        nblocks <= 5'((7'(ctrl[69:64]) + 7'd3) >> 2);
        fence <= fm_ce_se[7];
        signaled <= fm_ce_se[3];
        solicited <= BROKEN ? fm_ce_se[3] : fm_ce_se[1];
        imm <= ctrl[31:0];
        op <= op_d;
        op_ok <= op_ok_d;
      end
    end
  end
endmodule
