#include "core/storage/database.hpp"

namespace errand::storage {

sdk::Result<std::unique_ptr<Database>> Database::open(const std::filesystem::path& file,
                                                      const Schema& schema) {
  auto connection = Connection::open(file);
  if (!connection) return connection.error();
  try {
    migrate(**connection, schema);
  } catch (const Failure& e) {
    return sdk::make_error(e.what());
  }
  return std::unique_ptr<Database>(new Database(std::move(*connection), std::string(schema.name)));
}

}  // namespace errand::storage
