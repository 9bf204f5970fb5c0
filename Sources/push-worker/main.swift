import CLI
import PushPipeline

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let status = await PushWorkerCommand.tool.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
