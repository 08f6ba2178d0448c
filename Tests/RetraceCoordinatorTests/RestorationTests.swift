import Foundation
import Retrace
import RetraceCoordinator
import RetraceExamples
import Testing

@Suite("State restoration")
struct RestorationTests {
  @Test func navigationStatesSurviveEncoding() throws {
    for seed: UInt64 in 1...5 {
      let (_, state) = postsDomain.generate(count: 300, seed: seed)
      let data = try JSONEncoder().encode(state)
      #expect(try JSONDecoder().decode(PostsState.self, from: data) == state)
      let nav = try JSONDecoder().decode(
        NavigationState<PostsRoute>.self, from: JSONEncoder().encode(state.navigation))
      #expect(nav == state.navigation)
    }
  }

  @Test func aRefusalIsPartOfTheEncodedState() throws {
    var nav = PostsFlow.initialNavigation
    nav.apply(.push(route: .settings), rules: PostsFlow.rules)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(nav.lastRefusal), as: UTF8.self)
    #expect(
      json
        == #"{"action":"push","from":{"postList":{}},"reason":"pushNotAllowed","to":{"settings":{}}}"#
    )
    #expect(
      try JSONDecoder().decode(NavigationState<PostsRoute>.self, from: encoder.encode(nav)) == nav)
  }

  @Test func restoringThePathAsAnActionGivesTheSameNavigation() {
    let (_, saved) = postsDomain.generate(count: 500, seed: 99)
    var restored = PostsState()
    let reducer = PostsReducer(loader: { [] })
    // A restored session reopens the tab the user was on, with its stack and sheets.
    _ = reducer.reduce(
      into: &restored, action: .navigation(action: .setPath(path: saved.navigation.path)))
    #expect(restored.navigation.lastRefusal == nil)
    #expect(restored.navigation.path == saved.navigation.path)
    #expect(restored.screens.isInStep(with: restored.navigation, make: PostsScreen.init(route:)))
  }

  @Test(arguments: [
    #"{"tabs":[],"selectedTab":"main","presentations":[],"refusalCount":0}"#,
    #"{"tabs":[{"name":"main","stack":[]}],"selectedTab":"main","presentations":[],"refusalCount":0}"#,
    #"{"tabs":[{"name":"main","stack":[{"about":{}}]}],"selectedTab":"other","presentations":[],"refusalCount":0}"#,
    #"{"tabs":[{"name":"a","stack":[{"about":{}}]},{"name":"a","stack":[{"about":{}}]}],"selectedTab":"a"}"#,
    #"{"tabs":[{"name":"main","stack":[{"about":{}}]}],"selectedTab":"main","presentations":[{"style":"sheet","stack":[]}]}"#,
  ])
  func aBrokenStateDoesNotDecode(_ json: String) {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(NavigationState<PostsRoute>.self, from: Data(json.utf8))
    }
  }

  @Test func screenStatesRejectADuplicateRoute() throws {
    let json =
      #"[{"route":{"postList":{}},"screen":{"list":{"_0":{"loading":{}}}}},{"route":{"postList":{}},"screen":{"list":{"_0":{"loading":{}}}}}]"#
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(ScreenStates<PostsRoute, PostsScreen>.self, from: Data(json.utf8))
    }
    let state = PostsState()
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let encoded = String(decoding: try encoder.encode(state.screens), as: UTF8.self)
    #expect(encoded == #"[{"route":{"postList":{}},"screen":{"list":{"_0":{"loading":{}}}}}]"#)
  }
}

@Suite("Reflection")
struct ReflectionTests {
  @Test func dumpsShowThePublicNames() {
    let labels = Mirror(reflecting: PostsFlow.initialNavigation).children.compactMap(\.label)
    #expect(labels == ["tabs", "selectedTab", "presentations", "lastRefusal", "refusalCount"])
    var dump = ""
    Swift.dump(PostsState(), to: &dump)
    #expect(dump.contains("selectedTab: \"feed\""))
    #expect(!dump.contains("_tabs"))
  }
}
