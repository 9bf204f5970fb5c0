import CLI

#if canImport(Glibc)
    import Glibc
#endif

let status = await PushWorkerCommand.tool.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
