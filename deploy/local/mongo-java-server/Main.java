// Launcher of the local MongoDB wire-protocol server (mongo-java-server), started by libs/devstack
// when no MONGO_URL and no Docker engine are there. Usage:
//   java -cp 'lib/*' Main.java --port 27017 [--host 127.0.0.1] [--backend h2|memory] [--file data.mv]
// Runs until killed; a JVM shutdown hook closes the server so the H2 store is flushed on SIGTERM.
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

public class Main {
    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 27017;
        String backendName = "memory";
        String file = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--host" -> host = args[i + 1];
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--backend" -> backendName = args[i + 1];
                case "--file" -> file = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        MongoBackend backend = switch (backendName) {
            case "memory" -> new MemoryBackend();
            case "h2" -> {
                if (file == null) throw new IllegalArgumentException("--backend h2 needs --file");
                yield new H2Backend(file);
            }
            default -> throw new IllegalArgumentException("unknown backend " + backendName);
        };
        MongoServer server = new MongoServer(backend);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
        server.bind(host, port);
        System.out.println("mongo-java-server (" + backendName + ") listening on " + host + ":" + port);
    }
}
