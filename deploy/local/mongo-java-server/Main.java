// Launcher of the local MongoDB wire-protocol server (mongo-java-server), started by tools/devstack
// when no MONGO_URL and no Docker engine are there. Usage:
//   java -cp 'lib/*:classes' Main --port 27017 [--host 127.0.0.1] [--backend h2|memory] [--file data.mv]
// Runs until killed; a JVM shutdown hook closes the server so the H2 store is flushed on SIGTERM.
//
// What it changes in the server (docs/local-database.md):
// - Query planning (Queries.java, *Collections.java): mongo-java-server uses an index only when a
//   query's fields are exactly the index's, so `{_id, merchant_id, state}` (a conditional update)
//   scanned the whole collection. Any query that pins `_id` is answered from the `_id` index and
//   the rest matched on what it finds; a query of exactly a unique index's fields with one `$in`
//   (`{merchant_id, customer_key: {$in: [...]}}`) by one index look-up per value. A sorted page
//   keeps only its first `skip + limit` documents while a scan streams by.
// - `maxTimeMS` of find, count and aggregate is honoured (MaxTimeMSExpired, code 50), as mongod does.
// - Each connection's commands run on a thread of its own, and H2 reads take no collection lock
//   (H2Collections.java), so one long scan no longer stalls the other connections.
// - On H2 each command pins the store version it starts on, so space H2 frees under a long read
//   is not reused while the read runs; freed space is reused after H2's 45 s, not an hour.
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoThreadFactory;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.MongoDatabaseHandler;
import de.bwaldvogel.mongo.wire.MongoExceptionHandler;
import de.bwaldvogel.mongo.wire.MongoWireMessageEncoder;
import de.bwaldvogel.mongo.wire.MongoWireProtocolHandler;
import de.bwaldvogel.mongo.wire.MongoWireReplyEncoder;
import de.bwaldvogel.mongo.wire.message.ClientRequest;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultEventExecutor;
import java.util.concurrent.TimeUnit;

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
            case "memory" -> new IdFirstMemoryBackend();
            case "h2" -> {
                if (file == null) throw new IllegalArgumentException("--backend h2 needs --file");
                yield new IdFirstH2Backend(file);
            }
            default -> throw new IllegalArgumentException("unknown backend " + backendName);
        };
        Runnable shutdown = serve(backend, host, port);
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown));
        System.out.println("mongo-java-server (" + backendName + ") listening on " + host + ":" + port);
    }

    /**
     * MongoServer.bind's pipeline, with the command handler on a thread of the connection's own.
     * The server ran every command on the netty event loop of its connection: four loops (twice
     * the cores) shared by every connection, so a scan of minutes stalled a quarter of them,
     * the drivers' heartbeats among them (the drivers then dropped their pools). A connection
     * carries one command at a time, so a thread per connection keeps its order.
     */
    static Runnable serve(MongoBackend backend, String host, int port) {
        EventLoopGroup boss = new NioEventLoopGroup(1, new MongoThreadFactory("mongo-server-boss"));
        EventLoopGroup workers = new NioEventLoopGroup(0, new MongoThreadFactory("mongo-server-worker"));
        ChannelGroup channels = new DefaultChannelGroup("mongodb-channels", workers.next());
        MongoThreadFactory commandThreads = new MongoThreadFactory("mongo-server-connection");
        Channel server = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 100)
                .childOption(ChannelOption.TCP_NODELAY, Boolean.TRUE)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    public void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new MongoWireReplyEncoder());
                        ch.pipeline().addLast(new MongoWireMessageEncoder());
                        ch.pipeline().addLast(new MongoWireProtocolHandler());
                        ch.pipeline().addLast(new DefaultEventExecutor(commandThreads), new TimedCommands(backend, channels));
                        ch.pipeline().addLast(new MongoExceptionHandler());
                    }
                })
                .bind(host, port).syncUninterruptibly().channel();
        return () -> {
            server.close().syncUninterruptibly();
            channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            boss.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
            workers.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
            backend.close();
        };
    }

    /**
     * The server's command handler, running each command under its `maxTimeMS` (Queries.TimeLimit)
     * and, on H2, with the store version it starts on pinned (IdFirstH2Backend.pinVersion).
     */
    static final class TimedCommands extends MongoDatabaseHandler {
        private static final Runnable NOTHING = () -> {};
        private final MongoBackend backend;

        TimedCommands(MongoBackend backend, ChannelGroup channels) {
            super(backend, channels);
            this.backend = backend;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ClientRequest request) {
            Document command = request instanceof MongoMessage message ? message.getDocument()
                    : request instanceof MongoQuery query ? query.getQuery() : null;
            Queries.TimeLimit.start(command == null ? null : command.get("maxTimeMS"));
            Runnable unpin = backend instanceof IdFirstH2Backend h2 ? h2.pinVersion() : NOTHING;
            try {
                super.channelRead0(ctx, request);
            } finally {
                unpin.run();
                Queries.TimeLimit.clear();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            super.channelInactive(ctx);
            ctx.executor().shutdownGracefully(0, 1, TimeUnit.SECONDS); // the connection's thread
        }
    }
}
