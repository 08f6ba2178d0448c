import Testing

@testable import Retrace

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
    0xef46db3751d8e999, 0xc029548aed30b115, 0xd7c0c6644a2b8635, 0x445f5b65c3372ca0,
    0xea0469098327a087, 0x947a55d24a1116f7, 0x7d117be06af5f1c1, 0x4c90267883e57344,
    0x85d486d40685566e, 0x68dd725b02ada1ab, 0xade919393999255a, 0x337da96e9db2c598,
    0x38e45e0f1054c8b9, 0x9b03cee8f98d20f2, 0xa4d57238b5c88106, 0x4f731ad19d92ddd9,
    0x1ab7a5be656e82da, 0x73c9749e621d02e5, 0xa3a3d32c302e7bb9, 0x192d6c95d4b44995,
    0xb7e3e24337d2c380, 0x198b380a97490950, 0xab917dae771eeb2f, 0xbe325953819bd108,
    0xc532063adc50fb69, 0x325cc53539054bb2, 0x207f89951ecfd5a1, 0x323df43d73a12a9d,
    0x65eff756b6f9ecfc, 0x45d8ab1af6dc6ed8, 0x0330ec1de59abea1, 0xb55399997d9be289,
    0xde6e5cbf0c498e3e, 0xeb699708db50f408, 0x6fb1ed06c75bfc17, 0x3a789df0bad7712f,
    0xcdce1eda74262be9, 0x4b5c08e8e56e845f, 0xc6c12d8eec6a7e03, 0x72442cc05bf0876c,
    0x3e294739f7517d6d, 0x99b50ba951a7ad6f, 0xc812e5b33377a733, 0x6deefba8f43f719d,
    0xaacfddb5ade2bb47, 0xcd642cd462482909, 0x0fabf84f4ff4eb76, 0xdbce436bebb71334,
    0x98561992fa31488c, 0x558ab5d94ae3beb2, 0x620cc0d054a7a1f1, 0xc9a40dfa0a38b8d6,
    0xda09c4074f672152, 0xe1ddf2c73decce5c, 0xe42a0a876a4b346c, 0xc18560a9d8612907,
    0x748703adc121c160, 0x046d4c935c6bec3c, 0x533c966c501c58d4, 0x255031dac7b39d12,
    0x7f53307bab11ca94, 0x4b890aec006c4a5a, 0x0c890eefdd8aa6c1, 0x10761f6ad63da9d9,
    0x5a81d8e3bdaf0866, 0x81f9919494fe9bc4, 0xec883c60930f8303, 0xe833f49cdc41ea27,
    0x84b1b5d6a7ca05bb, 0x1c3512f98274987e, 0xa54798ff0160f4d0, 0x83053767bb4dbb11,
    0xda69d3682136e220, 0x0b4ea600b90e4457, 0xb7bbd3dae97e7790, 0x75fbae1953623a87,
    0xf92201df1cfe71a8, 0x82e060aaf73d04eb, 0x9ae1bef53a13d827, 0xfa03e24a812db11d,
    0x93b470b480c6aa0c, 0xc068ae96591590a3, 0x22f0a3f2289a6e69, 0x374d0c6df983798d,
    0x35802b7ff397c8e6, 0xbca8f8f38c60d809, 0xf8bbd17ce9edabea, 0xdfbcff182554c5bf,
    0x98eee5aa7b74c34e, 0x531f10842e6fbb5a, 0xa9a6e5d85178af9b, 0xc004da08caec3cbb,
    0xc8de1d638bd8dc07, 0x401167657b2a7018, 0xc15feaf230a6af6c, 0x2671b0ae0fedbef2,
    0x84591d075c27d8ec, 0xd704c3f515c7f679, 0x3c252068ad7ea539, 0x9d0b50f75e5b24a5,
    0x93c8350c28cfa337, 0x82be0db3883a3639, 0x21b06119b5b61d99, 0x288d65c269042f1a,
    0x8e0a913d02cccd53, 0x635cd9b4b60027e8, 0xd2b64b65b3d8b9a3, 0xe566c64025890b2a,
    0x43e512ede12e1136, 0x892a4c56a5ee7551, 0xf5b0273c58dd20b3, 0x5d93fa701cfa407a,
    0xf7a6c0f5333203ee, 0xd5d57882ffc972d6, 0x61718c51587c3b19, 0x40c32f278f3d4d7f,
    0x741e0b0355e0098f, 0xea80af8dadf2f327, 0xb4b40b129d9d307d, 0xcf5887d9fedc19bf,
    0x9092c3146dd0b2c4, 0xb2f7582f544e3752, 0x702fa14b88697529, 0xb002f24dc53cfb1d,
    0xe4570b14a0d5ff0c, 0xde45e3ac9cbe81d8, 0x58475a34d2cbda81, 0x3ed1ac6cebc15617,
    0xf34df7ecefe9c18a, 0x9b109f62dfaffc28, 0x6bede072203d659f, 0xef3288f1b687cdef,
    0x95405dbf73a16578, 0x69a92e3568c22c10, 0x309be0facefd33d9, 0x983c5d3154762754,
    0x797e28b0e73cc74f, 0x79a034e5ccaa1a4c, 0xeb1a02c57c3d728b, 0x4aecdf77a80102eb,
    0x3fd77c081ec66664, 0xd33b7070ef1afb8b, 0x020fd2b70a341427, 0x276e2a3383f20f15,
    0x0b17339359cfea35, 0x3d558beadf5ea4f0, 0x2f36da17d51f82a2, 0x9cdaf1f8943bc8d8,
    0x1c800c5acbcc2f1e, 0x95cdd3c959c81e58, 0x4c0e6ee93a09a766, 0xd1b2c2cba2a8c2bc,
    0x97624c7b316f0898, 0x5c3bb2a66e01e1cd, 0x94aebc59bd0837a2, 0xb6c2e75d892f2cf3,
    0xa4b58d641b4b7abc, 0x4c0079de884d0918, 0xd71743d5f6f2f5a1, 0x774fbdb7630bfa8c,
    0x40067c78aa6027b0, 0xe15b422add35ac1b, 0x886d57661a96b821, 0x98b148e238bbc87f,
    0x3fa0ad9afe0536ea, 0x5cdba6cd034051ba, 0x556682cd1cc91e69, 0xd2713768ba54d5c8,
    0x217541def881a1e8, 0x1c9c3ca1c7004c84, 0xed6d353844a703a1, 0x84d943acdeb51091,
    0xe9b52e4c45c3534f, 0x1de8ffa842868a32, 0x17c3d74dfd1d0cf7, 0x22e9076fe885e9b1,
    0x4a80f2685f62ced1, 0x2564a9bd274367cd, 0xdfbc04833569b75e, 0x0be4422e74521575,
    0x06b658023fb39d38, 0xb5ed1b01fa7ef488, 0xd84a1a86ad565bf1, 0x857d694da4bea1d5,
    0xe2ccefa597d133f3, 0xc29011d76db111a5, 0xbe9fadf7d273e025, 0xb56adc4f3356f01e,
    0x213f2c657fddb9b1, 0x791376d47157cac6, 0x7a04438e5f775893, 0x26a6ccf5961ebb62,
    0x82786ee907348f58, 0x0f018b0a29eb9df0, 0x75254fa76c77611d, 0x37f764ff319462ca,
    0x95df8cdd4e15c61b, 0x74ffcc06733002af, 0xc07ca05706e28b38, 0x9aa1c737f4ed6a59,
    0x5e99dcd3d322f024, 0xc4914f25a5d4b4d1, 0xf9a1b430bea7cfeb, 0xc800ea30a9880ef6,
    0xa27ee9f47e3282a9, 0x43775e6b32474abb, 0x73e0a45d24e20e76, 0x388224db78287f64,
    0xed7f553a34cfb6cf, 0xce46a7c7c630f5b9, 0x8e9f1a3d7f3ae079, 0xf930854611fb83b8,
    0xcec082884f62124a, 0x7b5e1d77c76ca5d9, 0x620f90b4b83500c5, 0x81951d4e27ab30b7,
    0xae0abd828bd65340, 0x7c6271ce20fa9d52, 0xc4237386b1f3b371, 0xe48f8bea30032c15,
    0x25da7611d2b7283c, 0x0d20761801dbcfc9, 0x31ba909465415487, 0x13283ee2f98831ff,
    0xcbb169b1edf2eb27, 0xa1f15455f36f1ff0, 0xa2612cc7c08055d6, 0x77abb97afc92dab7,
    0x0eef32a67802f935, 0x1155f8281fe3e9d5, 0xcd07c59419e5eeec, 0xa7c7ed2d239cba8a,
    0x68cbad4a0529fdb0, 0xf112ef388aab8ed7, 0x5c20c0888ce2a1f1, 0xc6d44329c4809f3b,
    0xe78d7c371d509ff9, 0xd1718a9217edb24e, 0x33f58fa03cf30100, 0x6d71df0c353085b1,
    0x7a6149aa8c251cff, 0x726db77d44841919, 0xecd252400be73586, 0xc2357e4fc7f4fc8d,
    0x66bcb2635680e4df, 0xb0dcefe5a2015f0a, 0x12722357c3b06774, 0x67295dede1e325b4,
    0x68bd3de82d84dfd6, 0x3f0d3b05fc586c60, 0xece87ef248eed4ba, 0x42e42e463915cb94,
    0xc0788e42d69a6ea3, 0xf0dc76eeebe6f8b1, 0xc7af46c668f89ebf, 0xc755e38c55aeb95b,
    0x66b3302df340405e, 0xf0e690d50e86d6f8, 0x9994365fdb0eefcc, 0x30070017384d1ca9,
    0xcf5793f6fef06131, 0xeab2a9d626270fc1, 0x83801fa8d2342b79, 0x41f9bc514b502344,
    0xc40ecc217ffd0270, 0xaeeadc8f32ef84bd, 0x58abda44cf8f82bf, 0xf6a1c9059ca21245,
    0x47e676777a4f5fca, 0x65620e2e2dbedac8, 0x51c256d047074c8b, 0xbc04253d4c93a256,
    0xf7536c20c8effe51, 0xd7c7f15a055477d3, 0x125bacc57257bdd1, 0x66bae2ca656dffdc,
    0x4fb9d8aab0654e01, 0x98bb5446bfec3b3f, 0x84ead207b1d6bbcb, 0xe58a67e99175852c,
    0x20073003cca26a5a, 0xe340d849ad00aadc, 0xd27b0e752f604bd9, 0x96fb4a0409fa2fe4,
    0x0c01535b5c072955, 0xebdfec1466635beb, 0x8484e77cd63636fa, 0xb3159e1c8d247790,
    0x84e961e930856b02, 0xa04d44f55fbae44f, 0x8ca6c1e251a58341, 0xf4c7b4e23a041722,
    0x0c0d23a587f0db7c, 0x74fd9b4aa3bb6b75, 0xe0e1a1eb9f393ab7, 0xdc99f9e4628029ea,
    0xaa00a27725ae8bc5, 0x68d6975c57bd534d, 0xb4248d2a9efc3b6f, 0xbc089b115b8eb775,
    0x45c26a2a729e9957,
  ]
  static let seeded: [(length: Int, seed: UInt64, hash: UInt64)] = [
    (0, 0x0000000000000001, 0xd5afba1336a3be4b),
    (1, 0x0000000000000001, 0xaff5604b9c7132a4),
    (3, 0x0000000000000001, 0x5891f130d32fb6b2),
    (4, 0x0000000000000001, 0xce1bdf9edc6a40fc),
    (7, 0x0000000000000001, 0xc8a6a04ecf84a68b),
    (8, 0x0000000000000001, 0xca21cc696cefd1ac),
    (31, 0x0000000000000001, 0xe75fa41ae55379a7),
    (32, 0x0000000000000001, 0x0c222f687beef623),
    (33, 0x0000000000000001, 0x57b267a43ef89cd7),
    (63, 0x0000000000000001, 0xb2e1d95f41ca2d86),
    (64, 0x0000000000000001, 0x1e41f5f60ce71c64),
    (100, 0x0000000000000001, 0x90d6489b1676ef7e),
    (255, 0x0000000000000001, 0x78a7b5b50848ba2d),
    (300, 0x0000000000000001, 0xeaacab47432d54e4),
    (0, 0x9e3779b97f4a7c15, 0xc4349fc93c010000),
    (1, 0x9e3779b97f4a7c15, 0x119fc9b9102da345),
    (3, 0x9e3779b97f4a7c15, 0xa7f58b201582c0b7),
    (4, 0x9e3779b97f4a7c15, 0x00db2d33ec1137de),
    (7, 0x9e3779b97f4a7c15, 0xaac8fb9f822a15cb),
    (8, 0x9e3779b97f4a7c15, 0xbdb4f94a817a6a32),
    (31, 0x9e3779b97f4a7c15, 0x854c1eb22dd018d4),
    (32, 0x9e3779b97f4a7c15, 0xa819a8d291a6d02f),
    (33, 0x9e3779b97f4a7c15, 0x41941678bacef16e),
    (63, 0x9e3779b97f4a7c15, 0xdb861dd0f3515b31),
    (64, 0x9e3779b97f4a7c15, 0x2a2d7ea00e2c5e6f),
    (100, 0x9e3779b97f4a7c15, 0x0b81390e23c7572b),
    (255, 0x9e3779b97f4a7c15, 0xbb3d5e6f17c9bcf2),
    (300, 0x9e3779b97f4a7c15, 0xfbedb671db95058a),
    (0, 0xffffffffffffffff, 0x298f4c84b24f5380),
    (1, 0xffffffffffffffff, 0x2d980947d3576243),
    (3, 0xffffffffffffffff, 0x6789984752c522e5),
    (4, 0xffffffffffffffff, 0x3e8c08b21648e42c),
    (7, 0xffffffffffffffff, 0x46632811941fd93f),
    (8, 0xffffffffffffffff, 0xd49246e14af62a12),
    (31, 0xffffffffffffffff, 0x707718a89fc2988f),
    (32, 0xffffffffffffffff, 0x165fd6ba0e22b26e),
    (33, 0xffffffffffffffff, 0x9e9252c5c696c0f7),
    (63, 0xffffffffffffffff, 0x7bf907470afd8633),
    (64, 0xffffffffffffffff, 0x90932ee687bd5e82),
    (100, 0xffffffffffffffff, 0x7e25701ae6ffe5eb),
    (255, 0xffffffffffffffff, 0xf4e8b569ff4280db),
    (300, 0xffffffffffffffff, 0xf45e1f8df12dacb5),
  ]
  static let random: [(hex: String, hash: UInt64)] = [  // os.urandom inputs
    ("fa47dfdd50", 0x8f4c19cf31b8f354),
    ("65a59bcf5267f0035ba927885a9af7e37b", 0xf879701466e53ff4),
    ("04c596dca04c52d20f0d431c2eda5cdd39df3efb000cbd05f9da1e7f63645acf", 0x1d213e8728e9c039),
    ("8af336e5b3f894bf0178125b20c2bb1533ec7471cdc8e0cb063e3f666564522fc97b2e8a2d88df7f", 0x2040ea2a43ec5c94),
    ("a2179ce801c3ec47d2be1531a688d45a695f16bb65dcea183e02271fb11257d6df974e05bc1f493273431819b89d5843ef890f6a526f01f9d4c02fab99191883", 0x75fcd164fa0f90fc),
    ("a5c037016c96e872922de878f3a1475f6cdebd1bb14adae34ae941db98d25aff6d13b1e8ca4ab8499dd65cfb66ccea7678e03cc28f3656e9e544591be7aca371fbd290ee4fa345fb228d1c1cdbcdfb3a327cae9aaa042dd1361a0fdcafabeba5c76fdd", 0xa21eb6eb0cb39c17),
    ("e8f387052c966c04abfdff1a78c3a233abe4072cd736e0527e2ebf9ae4bc4f864cb7086269ef0af816e8b879a73933a1c161d61c10114aef4012b40b7c4ac9a74a7d5efb81941907fec4a0873a6277e17eaeb0bdc292262f770f915edaf6919456bd3006b9e3673c6cee0b08193ed725c91dd764cc6425ae95686cfda47b3d74", 0xc0b8daf419250bc5),
    ("7a1a9d4442e5bfcd9db2daa2e221e056228200cd3e575e5c61618d87a47a4d7bbc64fccaa259cbe01599f2ce56a9bb9848e63b477edf9b556104411ff65c312027be163e28dc19235529b8998527e0eb69d5a2909ba1dbf9b272073158d26642fca5dbc5265b844506febda07726dbb6737b1a3d448b5b52f2b056cc91dfba4c05fd4c7bc04d0e65b3eba57e7b0101b4ede23bc3d694c7802d27a6337bd8db02b7cc505f390a99c2e67918f89190e634334fef9f08450c7d7017edab5c936c3f6ff75307f00285b1", 0xfc8b36b872156ff3),
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
