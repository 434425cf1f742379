// The memory backend (tests) with the launcher's query plans (Main.java, Queries.java). Its
// collections keep the server's lock around reads too: their documents live in a plain list.
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import java.util.Comparator;
import java.util.stream.Stream;

final class IdFirstMemoryBackend extends MemoryBackend {
    @Override
    public MemoryDatabase openOrCreateDatabase(String name) {
        return new MemoryDatabase(name, getCursorRegistry()) {
            @Override
            protected MemoryCollection openOrCreateCollection(String collection, CollectionOptions options) {
                return new IdFirstMemoryCollection(this, collection, options, cursorRegistry);
            }
        };
    }
}

final class IdFirstMemoryCollection extends MemoryCollection {
    IdFirstMemoryCollection(MongoDatabase db, String name, CollectionOptions options, CursorRegistry registry) {
        super(db, name, options, registry);
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document projection) {
        Iterable<Integer> positions = Queries.indexedPositions(getIndexes(), query);
        if (positions != null) return matchDocuments(query, positions, orderBy, skip, limit, batchSize, projection);
        return super.queryDocuments(query, orderBy, skip, limit, batchSize, projection);
    }

    @Override
    protected boolean documentMatchesQuery(Document document, Document query) {
        Queries.TimeLimit.check();
        return super.documentMatchesQuery(document, query);
    }

    @Override
    protected QueryResult matchDocumentsFromStream(Document query, Stream<Document> documents, int skip, int limit,
            int batchSize, Comparator<Document> order, Document projection) {
        return Queries.sortedPage(query, documents, skip, limit, batchSize, order, projection,
                document -> documentMatchesQuery(document, query), super::matchDocumentsFromStream);
    }
}
