import Synchronization
import Testing

/// What a `sendAll` answered, in the order of its `count` requests: `sendAll` runs with an answer callback that
/// records each answer at its index. Records an issue when a request was answered twice or never.
public func answersInOrder<Answer: Sendable>(
    of count: Int, _ sendAll: (@escaping @Sendable (Int, Answer) -> Void) async -> Void
) async -> [Answer] {
    let answered = Mutex((answers: [Answer?](repeating: nil, count: count), again: 0))
    await sendAll { index, answer in
        answered.withLock { answered in
            if answered.answers[index] != nil { answered.again += 1 }
            answered.answers[index] = answer
        }
    }
    let (answers, again) = answered.withLock { $0 }
    #expect(again == 0, "a request was answered twice")
    #expect(answers.allSatisfy { $0 != nil }, "a request was never answered")
    return answers.compactMap { $0 }
}
