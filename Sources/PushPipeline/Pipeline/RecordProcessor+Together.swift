import Essentials
import KafkaTypes
import PushCore

/// One of the records started together, planned, holding `units` of the device budget until its outputs were
/// acknowledged (`RecordProcessor.release`).
struct PlannedRecord<Request: Sendable>: Sendable {
    enum Plan: Sendable {
        case undecodable(UndecodableEvent)
        case event(PlannedEvent<Request>)
    }

    let record: KafkaRecord
    let source: SourcePosition
    let plan: Plan
    let units: Int

    /// Its record, source and plan, moved out (reading `plan` of a plan kept whole copies its event).
    consuming func parts() -> (record: KafkaRecord, source: SourcePosition, plan: Plan) {
        (record, source, plan)
    }
}

/// A record after its first attempts: its outputs when every device has a result, else what is left to settle.
enum Settlement<Request: Sendable>: Sendable {
    case settled([KafkaProducerRecord])
    case unsettled(UnsettledRecord<Request>)
}

/// A record some of whose devices' first attempts did not settle them: to send again (`RecordProcessor.settle`).
struct UnsettledRecord<Request: Sendable>: Sendable {
    let started: StartedRecord<Request>
    let event: PlannedEvent<Request>
    let devices: [StartedRecord<Request>.Device]
    let history: FailureHistory
    /// Each device's result when its plan or first attempt settled it; `nil` for those to send again.
    let settled: [DeviceResult?]
}

/// Records started together (`Pipeline`'s groups): each planned when its devices fit in the device budget now,
/// started once its first attempts (`GroupProgress`) arrived, settled without waiting when they settled it.
extension RecordProcessor {
    /// Plans `record` when the device budget has its devices free now and nobody waits in line for it; `nil`, taking
    /// nothing, otherwise (the record then goes the way of a record alone, `withStarted`, which waits in line). The
    /// record holds its event's units (`units(of:)`), as in `withStarted`.
    func planNow(_ record: KafkaRecord) -> PlannedRecord<Request>? {
        let prepared = planner.prepare(record)
        let bound = max(0, prepared.deviceBound)
        guard bound <= deviceBudget.limit, deviceBudget.tryAcquire(bound) else { return nil }
        let source = sourcePosition(of: record)
        switch prepared.plan(nowMillis: clock.nowMillis()) {
        case .failure(let undecodable):
            deviceBudget.release(bound)
            return PlannedRecord(record: record, source: source, plan: .undecodable(undecodable), units: 0)
        case .success(let event):
            let units = deviceBudget.resize(holding: bound, to: Self.units(of: event))
            return PlannedRecord(record: record, source: source, plan: .event(event), units: units)
        }
    }

    /// `planned` with its first attempts: `devices` has one per device of its plan (`GroupProgress`). Consumes the
    /// plan: its record and event move into the started record, uncopied.
    func started(
        _ planned: consuming PlannedRecord<Request>, devices: [StartedRecord<Request>.Device?]
    ) -> StartedRecord<Request> {
        let (record, source, plan) = planned.parts()
        switch consume plan {
        case .undecodable(let problem):
            return StartedRecord(record: record, source: source, undecodable: problem)
        case .event(let event):
            observeFailedSends(devices, event, of: record)
            return StartedRecord(record: record, source: source, event: event, devices: devices.compactMap { $0 })
        }
    }

    /// Gives back the device budget's units `record` holds.
    func release(_ record: PlannedRecord<Request>) {
        deviceBudget.release(record.units)
    }
}
