package store

import "context"

// StatusRecord is one record as `job status` prints it: the record, the ids
// of its children (a play's session, a session's invocations, a show's
// plays), and its notify setting with its deliveries (null when the record
// has no setting). It is also the body of a terminal notification.
type StatusRecord struct {
	RecordJSON
	Children []string    `json:"children"`
	Notify   *NotifyJSON `json:"notify"`
}

// Status returns r as `job status` prints it, reading its children and
// deliveries.
func (s *Store) Status(ctx context.Context, r Record) (StatusRecord, error) {
	sr := StatusRecord{RecordJSON: r.JSON(), Children: []string{}}
	kids, err := s.Children(ctx, r.ID)
	if err != nil {
		return StatusRecord{}, err
	}
	for _, k := range kids {
		sr.Children = append(sr.Children, k.ID)
	}
	n := r.Notify.JSON()
	if n == nil {
		return sr, nil
	}
	ds, err := s.Deliveries(ctx, r.ID)
	if err != nil {
		return StatusRecord{}, err
	}
	for _, d := range ds {
		n.Deliveries = append(n.Deliveries, d.JSON())
	}
	sr.Notify = n
	return sr, nil
}

// JSON returns the machine-result view of the setting, with no deliveries
// (nil for no setting).
func (n Notify) JSON() *NotifyJSON {
	if n.Empty() {
		return nil
	}
	j := &NotifyJSON{Command: n.Command, Timeout: n.Timeout.String(), MaxAttempts: n.MaxAttempts, Deliveries: []DeliveryJSON{}}
	if n.URL != "" {
		u := n.URL
		j.URL = &u
	}
	return j
}
