import CamrtpCLI

@main
struct Main {
    nonisolated static func main() async {
        CommandLineProgram.prepare()
        await CommandLineProgram.run(Camrtp.self)
    }
}
