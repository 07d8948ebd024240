// The C API: validate, call the C++ API, map the status to a return code.
// No exception crosses the C boundary.
#include <registry/registry.h>
#include <registry/registry.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

struct registry_s {
  registry::Registry reg;
};

struct registry_ticket_s {
  registry::Ticket ticket;
};

namespace {

using registry::Status;

int code_of(Status s) {
  switch (s) {
    case Status::ok: return REGISTRY_SUCCESS;
    case Status::pending: return REGISTRY_PENDING;
    case Status::invalid_argument: return REGISTRY_ERR_INVALID;
    case Status::not_found: return REGISTRY_ERR_NOT_FOUND;
    case Status::exists: return REGISTRY_ERR_EXISTS;
    case Status::denied: return REGISTRY_ERR_DENIED;
    case Status::too_large: return REGISTRY_ERR_TOO_LARGE;
    case Status::busy: return REGISTRY_ERR_BUSY;
    case Status::mpi_error: return REGISTRY_ERR_MPI;
  }
  return REGISTRY_ERR_INVALID;
}

int reject(registry_t reg, const char* fn, const char* reason) {
  std::fprintf(stderr, "[registry rank %d] %s: error: %s\n", reg != nullptr ? reg->reg.rank() : -1, fn, reason);
  return REGISTRY_ERR_INVALID;
}

// Runs `body`, turning any exception into a return code.
template <class F>
int guarded(F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return REGISTRY_ERR_NOMEM;
  } catch (...) {
    return REGISTRY_ERR_INVALID;
  }
}

// Reads an ""-terminated token array; a NULL array or entry, or no token
// before the terminator, is rejected.
std::optional<std::vector<std::string>> read_tokens(const char* const* tokens) {
  if (tokens == nullptr) return std::nullopt;
  std::vector<std::string> out;
  for (const char* const* t = tokens;; ++t) {
    if (*t == nullptr) return std::nullopt;
    if (**t == '\0') break;
    out.emplace_back(*t);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// Outcome of a recorded mutation: the immediate status, and the ticket
// handed out if the caller asked for one and the operation was recorded.
int finish(const registry::Ticket& t, registry_ticket_t* ticket) {
  const Status s = t.status();
  if (s != Status::pending && s != Status::ok) return code_of(s);
  if (ticket != nullptr) *ticket = new registry_ticket_s{t};
  return REGISTRY_SUCCESS;
}

char* dup_string(const std::string& s) {
  auto* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) throw std::bad_alloc();
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// An ""-terminated malloc'ed copy of `v`, freed by registry_tokens_free.
char** dup_tokens(const std::vector<std::string>& v) {
  auto** out = static_cast<char**>(std::calloc(v.size() + 1, sizeof(char*)));
  if (out == nullptr) throw std::bad_alloc();
  try {
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = dup_string(v[i]);
    out[v.size()] = dup_string("");
  } catch (...) {
    registry_tokens_free(out);
    throw;
  }
  return out;
}

}  // namespace

extern "C" {

int registry_create(MPI_Comm comm, registry_t* reg) {
  if (reg == nullptr) return reject(nullptr, "registry_create", "NULL result pointer");
  return guarded([&] {
    auto r = registry::Registry::create(comm);
    if (!r) return code_of(r.status());
    *reg = new registry_s{std::move(r).value()};
    return REGISTRY_SUCCESS;
  });
}

int registry_destroy(registry_t* reg) {
  if (reg == nullptr || *reg == nullptr) return REGISTRY_SUCCESS;
  delete *reg;
  *reg = nullptr;
  return REGISTRY_SUCCESS;
}

int registry_sync(registry_t reg) {
  if (reg == nullptr) return reject(reg, "registry_sync", "NULL registry");
  return guarded([&] { return code_of(reg->reg.sync()); });
}

int registry_define_segment(registry_t reg, const char* segment, const int* writers, int nwriters,
                            registry_ticket_t* ticket) {
  if (reg == nullptr) return reject(reg, "registry_define_segment", "NULL registry");
  if (segment == nullptr) return reject(reg, "registry_define_segment", "NULL segment");
  if (nwriters < 0 || (nwriters > 0 && writers == nullptr))
    return reject(reg, "registry_define_segment", "bad writer list");
  return guarded([&] {
    std::vector<int> w(writers, writers + nwriters);
    return finish(reg->reg.define_segment(segment, w), ticket);
  });
}

int registry_put(registry_t reg, registry_mode_t mode, const char* segment, const char* const* tokens,
                 const void* object, size_t size, registry_ticket_t* ticket) {
  if (reg == nullptr) return reject(reg, "registry_put", "NULL registry");
  if (segment == nullptr) return reject(reg, "registry_put", "NULL segment");
  if (object == nullptr && size > 0) return reject(reg, "registry_put", "NULL object with non-zero size");
  auto toks = read_tokens(tokens);
  if (!toks) return reject(reg, "registry_put", "NULL, empty or NULL-entry token list");
  return guarded([&] { return finish(reg->reg.put(segment, *toks, registry::Bytes(object, size), mode), ticket); });
}

int registry_delete(registry_t reg, registry_mode_t mode, const char* segment, const char* const* tokens,
                    registry_ticket_t* ticket) {
  if (reg == nullptr) return reject(reg, "registry_delete", "NULL registry");
  if (segment == nullptr) return reject(reg, "registry_delete", "NULL segment");
  auto toks = read_tokens(tokens);
  if (!toks) return reject(reg, "registry_delete", "NULL, empty or NULL-entry token list");
  return guarded([&] { return finish(reg->reg.erase(segment, *toks, mode), ticket); });
}

int registry_subscribe(registry_t reg, registry_mode_t mode, registry_action_t action, const char* segment,
                       const char* const* tokens, registry_notify_fn callback, void* user_data,
                       registry_ticket_t* ticket) {
  if (reg == nullptr) return reject(reg, "registry_subscribe", "NULL registry");
  if (segment == nullptr) return reject(reg, "registry_subscribe", "NULL segment");
  if (callback == nullptr) return reject(reg, "registry_subscribe", "NULL callback");
  auto toks = read_tokens(tokens);
  if (!toks) return reject(reg, "registry_subscribe", "NULL, empty or NULL-entry token list");
  return guarded([&] {
    auto forward = [callback, user_data](const registry::Notification& n) {
      std::vector<const char*> t;
      t.reserve(n.tokens.size() + 1);
      for (const auto& s : n.tokens) t.push_back(s.c_str());
      t.push_back("");
      const registry_notification_t c{static_cast<registry_action_t>(n.action),          n.segment.c_str(), t.data(),
                                      reinterpret_cast<const uint8_t*>(n.object.data()), n.object.size(),   n.issuer};
      callback(&c, user_data);
    };
    return finish(reg->reg.subscribe(segment, *toks, mode, action, forward), ticket);
  });
}

int registry_unsubscribe(registry_t reg, registry_mode_t mode, const char* segment, const char* const* tokens,
                         registry_ticket_t* ticket) {
  if (reg == nullptr) return reject(reg, "registry_unsubscribe", "NULL registry");
  if (segment == nullptr) return reject(reg, "registry_unsubscribe", "NULL segment");
  auto toks = read_tokens(tokens);
  if (!toks) return reject(reg, "registry_unsubscribe", "NULL, empty or NULL-entry token list");
  return guarded([&] { return finish(reg->reg.unsubscribe(segment, *toks, mode), ticket); });
}

int registry_ticket_status(registry_ticket_t ticket) {
  if (ticket == nullptr) return REGISTRY_ERR_INVALID;
  return code_of(ticket->ticket.status());
}

void registry_ticket_free(registry_ticket_t ticket) { delete ticket; }

int registry_get(registry_t reg, registry_mode_t mode, const char* segment, const char* const* tokens,
                 registry_value_t** values) {
  if (reg == nullptr) return reject(reg, "registry_get", "NULL registry");
  if (values == nullptr) return reject(reg, "registry_get", "NULL result pointer");
  *values = nullptr;
  if (segment == nullptr) return reject(reg, "registry_get", "NULL segment");
  auto toks = read_tokens(tokens);
  if (!toks) return reject(reg, "registry_get", "NULL, empty or NULL-entry token list");
  return guarded([&] {
    auto r = reg->reg.get(segment, *toks, mode);
    if (!r) return code_of(r.status());
    registry_value_t* head = nullptr;
    registry_value_t** tail = &head;
    try {
      for (const auto& v : *r) {
        auto* node = static_cast<registry_value_t*>(std::calloc(1, sizeof(registry_value_t)));
        if (node == nullptr) throw std::bad_alloc();
        *tail = node;
        tail = &node->next;
        node->segment = dup_string(segment);
        node->tokens = dup_tokens(v.tokens);
        node->object_size = v.object.size();
        if (!v.object.empty()) {
          node->object = static_cast<uint8_t*>(std::malloc(v.object.size()));
          if (node->object == nullptr) throw std::bad_alloc();
          std::memcpy(node->object, v.object.data(), v.object.size());
        }
      }
    } catch (...) {
      registry_values_free(head);
      throw;
    }
    *values = head;
    return REGISTRY_SUCCESS;
  });
}

void registry_values_free(registry_value_t* values) {
  while (values != nullptr) {
    registry_value_t* next = values->next;
    std::free(values->segment);
    registry_tokens_free(values->tokens);
    std::free(values->object);
    std::free(values);
    values = next;
  }
}

int registry_index(registry_t reg, const char* segment, char*** tokens) {
  if (reg == nullptr) return reject(reg, "registry_index", "NULL registry");
  if (tokens == nullptr) return reject(reg, "registry_index", "NULL result pointer");
  *tokens = nullptr;
  return guarded([&] {
    if (segment == nullptr) {
      *tokens = dup_tokens(reg->reg.index());
      return REGISTRY_SUCCESS;
    }
    auto r = reg->reg.index(segment);
    if (!r) return code_of(r.status());
    *tokens = dup_tokens(*r);
    return REGISTRY_SUCCESS;
  });
}

void registry_tokens_free(char** tokens) {
  if (tokens == nullptr) return;
  // The terminator "" is itself allocated; free through it.
  for (char** t = tokens;; ++t) {
    if (*t == nullptr) break;
    const bool last = **t == '\0';
    std::free(*t);
    if (last) break;
  }
  std::free(tokens);
}

const char* registry_strerror(int code) {
  switch (code) {
    case REGISTRY_SUCCESS: return "success";
    case REGISTRY_PENDING: return "pending (not yet synced)";
    case REGISTRY_ERR_INVALID: return "invalid argument";
    case REGISTRY_ERR_NOT_FOUND: return "not found (unknown segment or no matching object)";
    case REGISTRY_ERR_EXISTS: return "already exists";
    case REGISTRY_ERR_DENIED: return "write denied (segment is restricted to other ranks)";
    case REGISTRY_ERR_TOO_LARGE: return "too large";
    case REGISTRY_ERR_BUSY: return "busy (sync called from a notification callback)";
    case REGISTRY_ERR_MPI: return "MPI error";
    case REGISTRY_ERR_NOMEM: return "out of memory";
    default: return "unknown error code";
  }
}

}  // extern "C"
