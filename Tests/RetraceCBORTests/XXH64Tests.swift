import Testing

@testable import RetraceCBOR

/// Reference values from the Python `xxhash` 4.1 package (the C reference implementation),
/// generated once by a script that computed exactly these inputs:
/// `xxhash.xxh64(data[:n], seed=s).intdigest()` where `data` is ``lcgBytes(300)``.
enum XXH64Vectors {
  /// Deterministic pseudo-random bytes: a 64-bit LCG (Knuth's MMIX constants) from
  /// 0x0123456789abcdef, taking the top byte of each state.
  static func lcgBytes(_ count: Int) -> [UInt8] {
    var state: UInt64 = 0x0123_4567_89ab_cdef
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(state >> 56)
    }
  }

  static let seedZero: [UInt64] = [  // XXH64(lcgBytes.prefix(n), seed: 0) for n = 0...300
    0xef46_db37_51d8_e999, 0xc029_548a_ed30_b115, 0xd7c0_c664_4a2b_8635, 0x445f_5b65_c337_2ca0,
    0xea04_6909_8327_a087, 0x947a_55d2_4a11_16f7, 0x7d11_7be0_6af5_f1c1, 0x4c90_2678_83e5_7344,
    0x85d4_86d4_0685_566e, 0x68dd_725b_02ad_a1ab, 0xade9_1939_3999_255a, 0x337d_a96e_9db2_c598,
    0x38e4_5e0f_1054_c8b9, 0x9b03_cee8_f98d_20f2, 0xa4d5_7238_b5c8_8106, 0x4f73_1ad1_9d92_ddd9,
    0x1ab7_a5be_656e_82da, 0x73c9_749e_621d_02e5, 0xa3a3_d32c_302e_7bb9, 0x192d_6c95_d4b4_4995,
    0xb7e3_e243_37d2_c380, 0x198b_380a_9749_0950, 0xab91_7dae_771e_eb2f, 0xbe32_5953_819b_d108,
    0xc532_063a_dc50_fb69, 0x325c_c535_3905_4bb2, 0x207f_8995_1ecf_d5a1, 0x323d_f43d_73a1_2a9d,
    0x65ef_f756_b6f9_ecfc, 0x45d8_ab1a_f6dc_6ed8, 0x0330_ec1d_e59a_bea1, 0xb553_9999_7d9b_e289,
    0xde6e_5cbf_0c49_8e3e, 0xeb69_9708_db50_f408, 0x6fb1_ed06_c75b_fc17, 0x3a78_9df0_bad7_712f,
    0xcdce_1eda_7426_2be9, 0x4b5c_08e8_e56e_845f, 0xc6c1_2d8e_ec6a_7e03, 0x7244_2cc0_5bf0_876c,
    0x3e29_4739_f751_7d6d, 0x99b5_0ba9_51a7_ad6f, 0xc812_e5b3_3377_a733, 0x6dee_fba8_f43f_719d,
    0xaacf_ddb5_ade2_bb47, 0xcd64_2cd4_6248_2909, 0x0fab_f84f_4ff4_eb76, 0xdbce_436b_ebb7_1334,
    0x9856_1992_fa31_488c, 0x558a_b5d9_4ae3_beb2, 0x620c_c0d0_54a7_a1f1, 0xc9a4_0dfa_0a38_b8d6,
    0xda09_c407_4f67_2152, 0xe1dd_f2c7_3dec_ce5c, 0xe42a_0a87_6a4b_346c, 0xc185_60a9_d861_2907,
    0x7487_03ad_c121_c160, 0x046d_4c93_5c6b_ec3c, 0x533c_966c_501c_58d4, 0x2550_31da_c7b3_9d12,
    0x7f53_307b_ab11_ca94, 0x4b89_0aec_006c_4a5a, 0x0c89_0eef_dd8a_a6c1, 0x1076_1f6a_d63d_a9d9,
    0x5a81_d8e3_bdaf_0866, 0x81f9_9194_94fe_9bc4, 0xec88_3c60_930f_8303, 0xe833_f49c_dc41_ea27,
    0x84b1_b5d6_a7ca_05bb, 0x1c35_12f9_8274_987e, 0xa547_98ff_0160_f4d0, 0x8305_3767_bb4d_bb11,
    0xda69_d368_2136_e220, 0x0b4e_a600_b90e_4457, 0xb7bb_d3da_e97e_7790, 0x75fb_ae19_5362_3a87,
    0xf922_01df_1cfe_71a8, 0x82e0_60aa_f73d_04eb, 0x9ae1_bef5_3a13_d827, 0xfa03_e24a_812d_b11d,
    0x93b4_70b4_80c6_aa0c, 0xc068_ae96_5915_90a3, 0x22f0_a3f2_289a_6e69, 0x374d_0c6d_f983_798d,
    0x3580_2b7f_f397_c8e6, 0xbca8_f8f3_8c60_d809, 0xf8bb_d17c_e9ed_abea, 0xdfbc_ff18_2554_c5bf,
    0x98ee_e5aa_7b74_c34e, 0x531f_1084_2e6f_bb5a, 0xa9a6_e5d8_5178_af9b, 0xc004_da08_caec_3cbb,
    0xc8de_1d63_8bd8_dc07, 0x4011_6765_7b2a_7018, 0xc15f_eaf2_30a6_af6c, 0x2671_b0ae_0fed_bef2,
    0x8459_1d07_5c27_d8ec, 0xd704_c3f5_15c7_f679, 0x3c25_2068_ad7e_a539, 0x9d0b_50f7_5e5b_24a5,
    0x93c8_350c_28cf_a337, 0x82be_0db3_883a_3639, 0x21b0_6119_b5b6_1d99, 0x288d_65c2_6904_2f1a,
    0x8e0a_913d_02cc_cd53, 0x635c_d9b4_b600_27e8, 0xd2b6_4b65_b3d8_b9a3, 0xe566_c640_2589_0b2a,
    0x43e5_12ed_e12e_1136, 0x892a_4c56_a5ee_7551, 0xf5b0_273c_58dd_20b3, 0x5d93_fa70_1cfa_407a,
    0xf7a6_c0f5_3332_03ee, 0xd5d5_7882_ffc9_72d6, 0x6171_8c51_587c_3b19, 0x40c3_2f27_8f3d_4d7f,
    0x741e_0b03_55e0_098f, 0xea80_af8d_adf2_f327, 0xb4b4_0b12_9d9d_307d, 0xcf58_87d9_fedc_19bf,
    0x9092_c314_6dd0_b2c4, 0xb2f7_582f_544e_3752, 0x702f_a14b_8869_7529, 0xb002_f24d_c53c_fb1d,
    0xe457_0b14_a0d5_ff0c, 0xde45_e3ac_9cbe_81d8, 0x5847_5a34_d2cb_da81, 0x3ed1_ac6c_ebc1_5617,
    0xf34d_f7ec_efe9_c18a, 0x9b10_9f62_dfaf_fc28, 0x6bed_e072_203d_659f, 0xef32_88f1_b687_cdef,
    0x9540_5dbf_73a1_6578, 0x69a9_2e35_68c2_2c10, 0x309b_e0fa_cefd_33d9, 0x983c_5d31_5476_2754,
    0x797e_28b0_e73c_c74f, 0x79a0_34e5_ccaa_1a4c, 0xeb1a_02c5_7c3d_728b, 0x4aec_df77_a801_02eb,
    0x3fd7_7c08_1ec6_6664, 0xd33b_7070_ef1a_fb8b, 0x020f_d2b7_0a34_1427, 0x276e_2a33_83f2_0f15,
    0x0b17_3393_59cf_ea35, 0x3d55_8bea_df5e_a4f0, 0x2f36_da17_d51f_82a2, 0x9cda_f1f8_943b_c8d8,
    0x1c80_0c5a_cbcc_2f1e, 0x95cd_d3c9_59c8_1e58, 0x4c0e_6ee9_3a09_a766, 0xd1b2_c2cb_a2a8_c2bc,
    0x9762_4c7b_316f_0898, 0x5c3b_b2a6_6e01_e1cd, 0x94ae_bc59_bd08_37a2, 0xb6c2_e75d_892f_2cf3,
    0xa4b5_8d64_1b4b_7abc, 0x4c00_79de_884d_0918, 0xd717_43d5_f6f2_f5a1, 0x774f_bdb7_630b_fa8c,
    0x4006_7c78_aa60_27b0, 0xe15b_422a_dd35_ac1b, 0x886d_5766_1a96_b821, 0x98b1_48e2_38bb_c87f,
    0x3fa0_ad9a_fe05_36ea, 0x5cdb_a6cd_0340_51ba, 0x5566_82cd_1cc9_1e69, 0xd271_3768_ba54_d5c8,
    0x2175_41de_f881_a1e8, 0x1c9c_3ca1_c700_4c84, 0xed6d_3538_44a7_03a1, 0x84d9_43ac_deb5_1091,
    0xe9b5_2e4c_45c3_534f, 0x1de8_ffa8_4286_8a32, 0x17c3_d74d_fd1d_0cf7, 0x22e9_076f_e885_e9b1,
    0x4a80_f268_5f62_ced1, 0x2564_a9bd_2743_67cd, 0xdfbc_0483_3569_b75e, 0x0be4_422e_7452_1575,
    0x06b6_5802_3fb3_9d38, 0xb5ed_1b01_fa7e_f488, 0xd84a_1a86_ad56_5bf1, 0x857d_694d_a4be_a1d5,
    0xe2cc_efa5_97d1_33f3, 0xc290_11d7_6db1_11a5, 0xbe9f_adf7_d273_e025, 0xb56a_dc4f_3356_f01e,
    0x213f_2c65_7fdd_b9b1, 0x7913_76d4_7157_cac6, 0x7a04_438e_5f77_5893, 0x26a6_ccf5_961e_bb62,
    0x8278_6ee9_0734_8f58, 0x0f01_8b0a_29eb_9df0, 0x7525_4fa7_6c77_611d, 0x37f7_64ff_3194_62ca,
    0x95df_8cdd_4e15_c61b, 0x74ff_cc06_7330_02af, 0xc07c_a057_06e2_8b38, 0x9aa1_c737_f4ed_6a59,
    0x5e99_dcd3_d322_f024, 0xc491_4f25_a5d4_b4d1, 0xf9a1_b430_bea7_cfeb, 0xc800_ea30_a988_0ef6,
    0xa27e_e9f4_7e32_82a9, 0x4377_5e6b_3247_4abb, 0x73e0_a45d_24e2_0e76, 0x3882_24db_7828_7f64,
    0xed7f_553a_34cf_b6cf, 0xce46_a7c7_c630_f5b9, 0x8e9f_1a3d_7f3a_e079, 0xf930_8546_11fb_83b8,
    0xcec0_8288_4f62_124a, 0x7b5e_1d77_c76c_a5d9, 0x620f_90b4_b835_00c5, 0x8195_1d4e_27ab_30b7,
    0xae0a_bd82_8bd6_5340, 0x7c62_71ce_20fa_9d52, 0xc423_7386_b1f3_b371, 0xe48f_8bea_3003_2c15,
    0x25da_7611_d2b7_283c, 0x0d20_7618_01db_cfc9, 0x31ba_9094_6541_5487, 0x1328_3ee2_f988_31ff,
    0xcbb1_69b1_edf2_eb27, 0xa1f1_5455_f36f_1ff0, 0xa261_2cc7_c080_55d6, 0x77ab_b97a_fc92_dab7,
    0x0eef_32a6_7802_f935, 0x1155_f828_1fe3_e9d5, 0xcd07_c594_19e5_eeec, 0xa7c7_ed2d_239c_ba8a,
    0x68cb_ad4a_0529_fdb0, 0xf112_ef38_8aab_8ed7, 0x5c20_c088_8ce2_a1f1, 0xc6d4_4329_c480_9f3b,
    0xe78d_7c37_1d50_9ff9, 0xd171_8a92_17ed_b24e, 0x33f5_8fa0_3cf3_0100, 0x6d71_df0c_3530_85b1,
    0x7a61_49aa_8c25_1cff, 0x726d_b77d_4484_1919, 0xecd2_5240_0be7_3586, 0xc235_7e4f_c7f4_fc8d,
    0x66bc_b263_5680_e4df, 0xb0dc_efe5_a201_5f0a, 0x1272_2357_c3b0_6774, 0x6729_5ded_e1e3_25b4,
    0x68bd_3de8_2d84_dfd6, 0x3f0d_3b05_fc58_6c60, 0xece8_7ef2_48ee_d4ba, 0x42e4_2e46_3915_cb94,
    0xc078_8e42_d69a_6ea3, 0xf0dc_76ee_ebe6_f8b1, 0xc7af_46c6_68f8_9ebf, 0xc755_e38c_55ae_b95b,
    0x66b3_302d_f340_405e, 0xf0e6_90d5_0e86_d6f8, 0x9994_365f_db0e_efcc, 0x3007_0017_384d_1ca9,
    0xcf57_93f6_fef0_6131, 0xeab2_a9d6_2627_0fc1, 0x8380_1fa8_d234_2b79, 0x41f9_bc51_4b50_2344,
    0xc40e_cc21_7ffd_0270, 0xaeea_dc8f_32ef_84bd, 0x58ab_da44_cf8f_82bf, 0xf6a1_c905_9ca2_1245,
    0x47e6_7677_7a4f_5fca, 0x6562_0e2e_2dbe_dac8, 0x51c2_56d0_4707_4c8b, 0xbc04_253d_4c93_a256,
    0xf753_6c20_c8ef_fe51, 0xd7c7_f15a_0554_77d3, 0x125b_acc5_7257_bdd1, 0x66ba_e2ca_656d_ffdc,
    0x4fb9_d8aa_b065_4e01, 0x98bb_5446_bfec_3b3f, 0x84ea_d207_b1d6_bbcb, 0xe58a_67e9_9175_852c,
    0x2007_3003_cca2_6a5a, 0xe340_d849_ad00_aadc, 0xd27b_0e75_2f60_4bd9, 0x96fb_4a04_09fa_2fe4,
    0x0c01_535b_5c07_2955, 0xebdf_ec14_6663_5beb, 0x8484_e77c_d636_36fa, 0xb315_9e1c_8d24_7790,
    0x84e9_61e9_3085_6b02, 0xa04d_44f5_5fba_e44f, 0x8ca6_c1e2_51a5_8341, 0xf4c7_b4e2_3a04_1722,
    0x0c0d_23a5_87f0_db7c, 0x74fd_9b4a_a3bb_6b75, 0xe0e1_a1eb_9f39_3ab7, 0xdc99_f9e4_6280_29ea,
    0xaa00_a277_25ae_8bc5, 0x68d6_975c_57bd_534d, 0xb424_8d2a_9efc_3b6f, 0xbc08_9b11_5b8e_b775,
    0x45c2_6a2a_729e_9957,
  ]
  static let seeded: [(length: Int, seed: UInt64, hash: UInt64)] = [
    (0, 0x0000_0000_0000_0001, 0xd5af_ba13_36a3_be4b),
    (1, 0x0000_0000_0000_0001, 0xaff5_604b_9c71_32a4),
    (3, 0x0000_0000_0000_0001, 0x5891_f130_d32f_b6b2),
    (4, 0x0000_0000_0000_0001, 0xce1b_df9e_dc6a_40fc),
    (7, 0x0000_0000_0000_0001, 0xc8a6_a04e_cf84_a68b),
    (8, 0x0000_0000_0000_0001, 0xca21_cc69_6cef_d1ac),
    (31, 0x0000_0000_0000_0001, 0xe75f_a41a_e553_79a7),
    (32, 0x0000_0000_0000_0001, 0x0c22_2f68_7bee_f623),
    (33, 0x0000_0000_0000_0001, 0x57b2_67a4_3ef8_9cd7),
    (63, 0x0000_0000_0000_0001, 0xb2e1_d95f_41ca_2d86),
    (64, 0x0000_0000_0000_0001, 0x1e41_f5f6_0ce7_1c64),
    (100, 0x0000_0000_0000_0001, 0x90d6_489b_1676_ef7e),
    (255, 0x0000_0000_0000_0001, 0x78a7_b5b5_0848_ba2d),
    (300, 0x0000_0000_0000_0001, 0xeaac_ab47_432d_54e4),
    (0, 0x9e37_79b9_7f4a_7c15, 0xc434_9fc9_3c01_0000),
    (1, 0x9e37_79b9_7f4a_7c15, 0x119f_c9b9_102d_a345),
    (3, 0x9e37_79b9_7f4a_7c15, 0xa7f5_8b20_1582_c0b7),
    (4, 0x9e37_79b9_7f4a_7c15, 0x00db_2d33_ec11_37de),
    (7, 0x9e37_79b9_7f4a_7c15, 0xaac8_fb9f_822a_15cb),
    (8, 0x9e37_79b9_7f4a_7c15, 0xbdb4_f94a_817a_6a32),
    (31, 0x9e37_79b9_7f4a_7c15, 0x854c_1eb2_2dd0_18d4),
    (32, 0x9e37_79b9_7f4a_7c15, 0xa819_a8d2_91a6_d02f),
    (33, 0x9e37_79b9_7f4a_7c15, 0x4194_1678_bace_f16e),
    (63, 0x9e37_79b9_7f4a_7c15, 0xdb86_1dd0_f351_5b31),
    (64, 0x9e37_79b9_7f4a_7c15, 0x2a2d_7ea0_0e2c_5e6f),
    (100, 0x9e37_79b9_7f4a_7c15, 0x0b81_390e_23c7_572b),
    (255, 0x9e37_79b9_7f4a_7c15, 0xbb3d_5e6f_17c9_bcf2),
    (300, 0x9e37_79b9_7f4a_7c15, 0xfbed_b671_db95_058a),
    (0, 0xffff_ffff_ffff_ffff, 0x298f_4c84_b24f_5380),
    (1, 0xffff_ffff_ffff_ffff, 0x2d98_0947_d357_6243),
    (3, 0xffff_ffff_ffff_ffff, 0x6789_9847_52c5_22e5),
    (4, 0xffff_ffff_ffff_ffff, 0x3e8c_08b2_1648_e42c),
    (7, 0xffff_ffff_ffff_ffff, 0x4663_2811_941f_d93f),
    (8, 0xffff_ffff_ffff_ffff, 0xd492_46e1_4af6_2a12),
    (31, 0xffff_ffff_ffff_ffff, 0x7077_18a8_9fc2_988f),
    (32, 0xffff_ffff_ffff_ffff, 0x165f_d6ba_0e22_b26e),
    (33, 0xffff_ffff_ffff_ffff, 0x9e92_52c5_c696_c0f7),
    (63, 0xffff_ffff_ffff_ffff, 0x7bf9_0747_0afd_8633),
    (64, 0xffff_ffff_ffff_ffff, 0x9093_2ee6_87bd_5e82),
    (100, 0xffff_ffff_ffff_ffff, 0x7e25_701a_e6ff_e5eb),
    (255, 0xffff_ffff_ffff_ffff, 0xf4e8_b569_ff42_80db),
    (300, 0xffff_ffff_ffff_ffff, 0xf45e_1f8d_f12d_acb5),
  ]
  static let random: [(hex: String, hash: UInt64)] = [  // os.urandom inputs
    ("fa47dfdd50", 0x8f4c_19cf_31b8_f354),
    ("65a59bcf5267f0035ba927885a9af7e37b", 0xf879_7014_66e5_3ff4),
    ("04c596dca04c52d20f0d431c2eda5cdd39df3efb000cbd05f9da1e7f63645acf", 0x1d21_3e87_28e9_c039),
    (
      "8af336e5b3f894bf0178125b20c2bb1533ec7471cdc8e0cb063e3f666564522fc97b2e8a2d88df7f",
      0x2040_ea2a_43ec_5c94
    ),
    (
      "a2179ce801c3ec47d2be1531a688d45a695f16bb65dcea183e02271fb11257d6df974e05bc1f493273431819b89d5843ef890f6a526f01f9d4c02fab99191883",
      0x75fc_d164_fa0f_90fc
    ),
    (
      "a5c037016c96e872922de878f3a1475f6cdebd1bb14adae34ae941db98d25aff6d13b1e8ca4ab8499dd65cfb66ccea7678e03cc28f3656e9e544591be7aca371fbd290ee4fa345fb228d1c1cdbcdfb3a327cae9aaa042dd1361a0fdcafabeba5c76fdd",
      0xa21e_b6eb_0cb3_9c17
    ),
    (
      "e8f387052c966c04abfdff1a78c3a233abe4072cd736e0527e2ebf9ae4bc4f864cb7086269ef0af816e8b879a73933a1c161d61c10114aef4012b40b7c4ac9a74a7d5efb81941907fec4a0873a6277e17eaeb0bdc292262f770f915edaf6919456bd3006b9e3673c6cee0b08193ed725c91dd764cc6425ae95686cfda47b3d74",
      0xc0b8_daf4_1925_0bc5
    ),
    (
      "7a1a9d4442e5bfcd9db2daa2e221e056228200cd3e575e5c61618d87a47a4d7bbc64fccaa259cbe01599f2ce56a9bb9848e63b477edf9b556104411ff65c312027be163e28dc19235529b8998527e0eb69d5a2909ba1dbf9b272073158d26642fca5dbc5265b844506febda07726dbb6737b1a3d448b5b52f2b056cc91dfba4c05fd4c7bc04d0e65b3eba57e7b0101b4ede23bc3d694c7802d27a6337bd8db02b7cc505f390a99c2e67918f89190e634334fef9f08450c7d7017edab5c936c3f6ff75307f00285b1",
      0xfc8b_36b8_7215_6ff3
    ),
  ]
}

struct XXH64Tests {
  static let data = XXH64Vectors.lcgBytes(300)

  @Test(arguments: 0...300)
  func matchesReferenceWithSeedZero(length: Int) {
    #expect(XXH64.hash(Array(Self.data.prefix(length))) == XXH64Vectors.seedZero[length])
  }

  @Test(arguments: XXH64Vectors.seeded.indices)
  func matchesReferenceWithSeed(index: Int) {
    let vector = XXH64Vectors.seeded[index]
    #expect(XXH64.hash(Array(Self.data.prefix(vector.length)), seed: vector.seed) == vector.hash)
  }

  @Test(arguments: XXH64Vectors.random.indices)
  func matchesReferenceOnRandomInput(index: Int) {
    let vector = XXH64Vectors.random[index]
    #expect(XXH64.hash(bytes(hex: vector.hex)) == vector.hash)
  }

  /// Three words hash as their 24 little-endian bytes do.
  @Test func threeWordsHashAsTheirBytes() {
    var random = SystemRandomNumberGenerator()
    for _ in 0..<1_000 {
      let (a, b, c, seed) = (
        random.next() as UInt64, random.next() as UInt64, random.next() as UInt64,
        random.next() as UInt64
      )
      let bytes = withUnsafeBytes(of: (a.littleEndian, b.littleEndian, c.littleEndian)) {
        Array($0)
      }
      #expect(XXH64.hash(words: a, b, c, seed: seed) == XXH64.hash(bytes, seed: seed))
    }
    #expect(XXH64.hash(words: 0, 0, 0, seed: 0) == XXH64.hash([UInt8](repeating: 0, count: 24)))
  }

  @Test func knownStrings() {
    #expect(XXH64.hash(Array("abc".utf8)) == 0x44bc_2cf5_ad77_0999)
    #expect(XXH64.hash([]) == 0xef46_db37_51d8_e999)
  }

  /// Feeding the input in pieces of every size gives the one-shot hash.
  @Test(arguments: [1, 2, 3, 5, 7, 8, 13, 31, 32, 33, 64, 100])
  func streamingEqualsOneShot(pieceSize: Int) {
    for length in [0, 1, 31, 32, 33, 64, 65, 127, 128, 129, 300] {
      let input = Array(Self.data.prefix(length))
      var hasher = XXH64Hasher(seed: 7)
      var offset = 0
      while offset < input.count {
        let end = min(offset + pieceSize, input.count)
        hasher.update(Array(input[offset..<end]))
        offset = end
      }
      hasher.update([])
      #expect(hasher.finalize() == XXH64.hash(input, seed: 7), "length \(length)")
    }
  }

  @Test func finalizeDoesNotEndTheHasher() {
    var hasher = XXH64Hasher()
    hasher.update(Array(Self.data.prefix(40)))
    #expect(hasher.finalize() == XXH64Vectors.seedZero[40])
    hasher.update(Array(Self.data[40..<100]))
    #expect(hasher.finalize() == XXH64Vectors.seedZero[100])
  }
}
